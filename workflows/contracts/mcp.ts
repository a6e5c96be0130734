/**
 * MCP servers as a run sees them: the servers its profile may use (agents/mcp.ts admits them) and
 * each tool as the model sees it (activities/mcp discovers them; workflows/run/mcp-tools.ts carries them).
 */
import type { RefusalCode } from './refusals';

/** One tool as the model sees it, with the server and the server's own name for it. */
export interface McpToolSchema {
  /** `mcp__<server>__<tool>`. */
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A server a run may use, with its allowlist. */
export interface McpAttachment {
  server: string;
  transport: 'stdio' | 'http';
  tools?: string[];
}

/** A server attached to the agent that this run may not use, and why (the About block says so). */
export interface McpOff {
  server: string;
  /** A refusal code when the admission refused it; absent when the server is not configured here. */
  code?: RefusalCode;
  rule: string;
  why: string;
}

export interface McpAdmission {
  servers: McpAttachment[];
  off: McpOff[];
}
