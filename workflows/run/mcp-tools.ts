import { isCancellation } from '@temporalio/workflow';
import type { McpCallInput, McpDiscovered, McpRunRef } from '../contracts/mcp-calls';
import type { ToolCall, ToolResult } from '../contracts/model';
import type { WorkspaceRef } from '../contracts/sandbox';
import type { McpAttachment } from '../contracts/mcp';
import type { McpActivities } from '../activity-proxies';
import type { McpRunTools } from '../contracts';
import { errorMessage, fail, ok } from './executors/tool-result';
import type { RunState } from './run-state';

/**
 * Characters of MCP tool schemas and descriptions one run carries in its state and shows the model
 * (every turn): tools past it are left out and named, so a server with a huge surface cannot swell
 * the run's payloads or its prompt.
 */
export const MCP_TOOLS_MAX_CHARS = 200_000;

export interface McpToolsDeps {
  runId: string;
  state: RunState;
  /** The run's workspace: where its stdio servers run. */
  workspace: WorkspaceRef;
  /** Routed by the run's workspace host: a call naming the workspace goes to the host that holds it. */
  activities: McpActivities;
}

/**
 * A run's MCP servers as tools. Discovery runs once, when the run starts (activities, one per
 * server, at the same time); the tools found, the problems and the prompt block naming them
 * become data in the run's state and are carried across continue-as-new, so the run's tool list
 * stays byte-stable for the prompt cache. A call is an activity whose failures come back as data:
 * a hung or crashed server costs one tool error, never the run. Plain class: unit tests drive it.
 */
export class McpTools {
  constructor(private readonly deps: McpToolsDeps) {}

  /** The servers of the profile, discovered unless the run already has its list (a carry). */
  async discover(): Promise<void> {
    const { state } = this.deps;
    const servers = state.input.profile.mcp?.servers ?? [];
    if (state.mcp || servers.length === 0) return;
    const found = await Promise.all(
      servers.map((attachment) =>
        this.deps.activities.mcpDiscover({ ...this.ref(attachment.transport), attachment }).catch((error: unknown): McpDiscovered => {
          if (isCancellation(error)) throw error;
          return {
            server: attachment.server,
            tools: [],
            problems: [`the MCP server ${attachment.server} was not reached: ${errorMessage(error)}`],
          };
        }),
      ),
    );
    const problems = found.flatMap((entry) => entry.problems);
    const tools: McpRunTools['tools'] = [];
    let size = 0;
    for (const tool of found.flatMap((entry) => entry.tools)) {
      size += tool.name.length + tool.description.length + JSON.stringify(tool.inputSchema).length;
      if (size > MCP_TOOLS_MAX_CHARS) {
        problems.push(`${tool.name} and the tools after it (their schemas are over ${MCP_TOOLS_MAX_CHARS} characters in all for one run)`);
        break;
      }
      tools.push(tool);
    }
    state.mcp = { tools, problems, block: mcpBlock(servers, tools, problems), usage: {} };
  }

  /** Whether `name` is one of this run's MCP tools. */
  has(name: string): boolean {
    return this.deps.state.mcp?.tools.some((tool) => tool.name === name) ?? false;
  }

  async execute(call: ToolCall): Promise<ToolResult> {
    const { state } = this.deps;
    const tool = state.mcp?.tools.find((candidate) => candidate.name === call.name);
    if (!tool) {
      return fail(call, `The tool "${call.name}" is not available to this run; it was not executed.`);
    }
    const args = call.input ?? {};
    if (typeof args !== 'object' || Array.isArray(args))
      return fail(call, `${call.name}: the input must be an object of the tool's arguments.`);
    const transport = state.input.profile.mcp?.servers.find((entry) => entry.server === tool.server)?.transport ?? 'http';
    const input: McpCallInput = {
      ...this.ref(transport),
      server: tool.server,
      tool: tool.tool,
      arguments: args as Record<string, unknown>,
    };
    try {
      const result = await this.deps.activities.mcpCall(input);
      state.countMcpCall(tool.server, result.ok, result.chars);
      return result.ok ? ok(call, result.text) : fail(call, result.text);
    } catch (error) {
      if (isCancellation(error)) throw error;
      state.countMcpCall(tool.server, false, 0);
      // The worker was lost mid-call (the workspace's host among them): the call's effect is unknown.
      if ((error as { type?: string }).type === 'workspace_lost') throw error;
      return fail(call, `${call.name} did not report a result (${errorMessage(error)}). Its effect is unknown: check before repeating it.`);
    }
  }

  /** Ends the run's sessions: on the workspace's host (stdio servers) and on a worker of the shared queue (HTTP ones). */
  async close(): Promise<void> {
    const servers = this.deps.state.input.profile.mcp?.servers ?? [];
    const closing: Array<Promise<unknown>> = [];
    if (servers.some((entry) => entry.transport === 'stdio'))
      closing.push(this.deps.activities.mcpClose({ runId: this.deps.runId, workspace: this.deps.workspace }));
    if (servers.some((entry) => entry.transport === 'http')) closing.push(this.deps.activities.mcpClose({ runId: this.deps.runId }));
    await Promise.all(closing.map((pending) => pending.catch(() => undefined)));
  }

  /** Which run, and for a stdio server the workspace it runs in with the run's door grant. */
  private ref(transport: McpAttachment['transport']): McpRunRef {
    const { profile } = this.deps.state.input;
    return {
      runId: this.deps.runId,
      ...(transport === 'stdio'
        ? {
            workspace: this.deps.workspace,
            agent: profile.agent,
            machine: profile.machine,
            identity: profile.identity,
            ...(profile.repo ? { repo: profile.repo.value } : {}),
          }
        : {}),
    };
  }
}

/**
 * The system prompt's block about the run's MCP tools: which servers, each tool with its
 * description, what their results are, and what could not be offered. Fixed when discovered.
 */
export function mcpBlock(servers: readonly McpAttachment[], tools: McpRunTools['tools'], problems: readonly string[]): string {
  const names = servers.map((entry) => entry.server).join(', ');
  const lines = ['## Tools from MCP servers'];
  if (tools.length > 0) {
    lines.push(
      `These ${tools.length} tools come from the team's MCP servers (${names}); they are in your tool list as mcp__<server>__<tool>. ` +
        "What they return is data from outside Switchboard, cut to its head and tail past the server's bound. A call that hangs or breaks the server comes back as an error; its effect is then unknown.",
      ...tools.map((tool) => `- ${tool.name}: ${tool.description.replace(/\s+/g, ' ')}`),
    );
  } else {
    lines.push(`No tools of the MCP servers ${names} could be offered to this run.`);
  }
  if (problems.length > 0) lines.push(`Not offered: ${problems.join('; ')}.`);
  return lines.join('\n');
}
