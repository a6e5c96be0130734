import type { McpAttachment, McpToolSchema } from './mcp';
import type { WorkspaceRef } from './sandbox';

/**
 * The contract of the MCP activities (discover a server's tools, call one, close a run's
 * sessions). Workflows import these types only.
 */

/** Which run a call is for, and where a stdio server runs: the run's workspace (its sandbox). */
export interface McpRunRef {
  runId: string;
  /** The run's workspace: required for a stdio server, absent for an HTTP one. */
  workspace?: WorkspaceRef;
  /** For the sandbox door's grant while a stdio server runs (as a shell command's). */
  agent?: string;
  machine?: string;
  identity?: 'none' | 'read' | 'write';
  repo?: string;
}

export interface McpDiscoverInput extends McpRunRef {
  attachment: McpAttachment;
}

export interface McpDiscovered {
  server: string;
  tools: McpToolSchema[];
  /** What went wrong or was left out (a server that did not start, a tool with a name or schema a model cannot take). */
  problems: string[];
}

export interface McpCallInput extends McpRunRef {
  server: string;
  /** The server's own name of the tool. */
  tool: string;
  arguments: Record<string, unknown>;
}

export type McpFailureCode = 'timeout' | 'crashed' | 'unavailable' | 'refused' | 'too_large' | 'tool_error' | 'protocol';

export interface McpCallResult {
  ok: boolean;
  /** What the model reads, bounded by the server's `maxResultChars`. */
  text: string;
  /** Characters the server answered before the bound (counted in the run's usage). */
  chars: number;
  truncated?: boolean;
  code?: McpFailureCode;
}
