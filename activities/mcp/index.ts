import { mcpExposedName, mcpToolAllowed } from '../../agents/mcp';
import { currentActivityContext } from '../sandbox/activity-context';
import { McpAnswerTooLarge } from './guarded-fetch';
import { boundResult, renderContent } from './render';
import { describe, MCP_MAX_MESSAGE_BYTES, McpSessions, McpUnavailable, type McpSession, type McpSessionDeps } from './sessions';
import type { McpToolSchema } from '../../workflows/contracts/mcp';
import type { McpCallInput, McpCallResult, McpDiscovered, McpDiscoverInput, McpFailureCode } from '../../workflows/contracts/mcp-calls';

export * from '../../workflows/contracts/mcp-calls';
export { McpSessions, type McpSessionDeps } from './sessions';

/** Tools one server may show a run; the rest are named in the discovery's problems. */
export const MCP_MAX_TOOLS = 64;
/** A tool's description as the model reads it, at most. */
export const MCP_DESCRIPTION_MAX = 1_024;
/** A tool's input schema, as JSON, at most (a run carries its tool list in its state). */
export const MCP_SCHEMA_MAX = 16_384;
/** Pages of tools/list read. */
const MAX_PAGES = 10;

/** The protocol's own error codes the client raises. */
const REQUEST_TIMEOUT = -32001;
const CONNECTION_CLOSED = -32000;

export type McpActivities = ReturnType<typeof createMcpActivities>;

/**
 * MCP servers as tools: discover a server's tools for a run (once, at its start), call one, and
 * close the run's sessions. Every failure of a server comes back as data (a hung call is one
 * bounded error; a crash is reported and the server started again by the next call), never as
 * a failed activity, so a server costs a tool error at most, never the run.
 */
export function createMcpActivities(deps: McpSessionDeps, sessions = new McpSessions(deps)) {
  return {
    async mcpDiscover(input: McpDiscoverInput): Promise<McpDiscovered> {
      const { server } = input.attachment;
      const config = sessions.config(server);
      const found: McpDiscovered = { server, tools: [], problems: [] };
      if (!config) return { ...found, problems: [`no MCP server called ${server} is configured on this worker (mcp.servers)`] };
      let session: McpSession;
      try {
        session = await sessions.open(input, server);
      } catch (error) {
        return {
          ...found,
          problems: [error instanceof McpUnavailable ? error.message : `the MCP server ${server} did not start: ${describe(error)}`],
        };
      }
      try {
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES; page += 1) {
          const listed = await session.client.listTools(cursor ? { cursor } : undefined, { timeout: config.startTimeoutMs });
          for (const tool of listed.tools) {
            if (!mcpToolAllowed(input.attachment.tools, tool.name)) continue;
            const shown = schemaOf(server, tool, found.problems);
            if (!shown) continue;
            if (found.tools.length >= MCP_MAX_TOOLS) {
              found.problems.push(
                `${server}: only its first ${MCP_MAX_TOOLS} tools are offered (${tool.name} and later ones are left out)`,
              );
              return found;
            }
            found.tools.push(shown);
          }
          cursor = listed.nextCursor;
          if (!cursor) break;
        }
      } catch (error) {
        sessions.drop(input, session, !session.alive);
        return { ...found, tools: [], problems: [`the MCP server ${server} did not list its tools: ${describe(error, session)}`] };
      }
      return found;
    },

    async mcpCall(input: McpCallInput): Promise<McpCallResult> {
      const config = sessions.config(input.server);
      if (!config) return failed('unavailable', `no MCP server called ${input.server} is configured on this worker (mcp.servers)`);
      let session: McpSession;
      try {
        session = await sessions.open(input, input.server);
      } catch (error) {
        return failed('unavailable', error instanceof McpUnavailable ? error.message : describe(error));
      }
      // Said once, by the first call a restarted server answers.
      const restarted = session.restarts > 0 && !session.announced ? ` (the server was started again for this call)` : '';
      session.announced = true;
      const signal = currentActivityContext()?.cancellationSignal;
      let result: Awaited<ReturnType<McpSession['client']['callTool']>>;
      try {
        result = await session.client.callTool({ name: input.tool, arguments: input.arguments }, undefined, {
          timeout: config.callTimeoutMs,
          maxTotalTimeout: config.callTimeoutMs,
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        if (signal?.aborted) {
          sessions.drop(input, session, false);
          throw error;
        }
        const code = failureCode(error, session);
        // A server that hung or broke is not trusted with the next call: that call starts it afresh.
        if (code !== 'tool_error') sessions.drop(input, session, code === 'crashed' || code === 'too_large');
        return failed(code, failureText(code, input, config.callTimeoutMs, error, session) + restarted);
      }
      session.lastUsed = Date.now();
      const text = renderContent(result as { content?: unknown; structuredContent?: unknown });
      const bounded = boundResult(text, config.maxResultChars);
      const isError = (result as { isError?: boolean }).isError === true;
      return {
        ok: !isError,
        text: (bounded.text || '(the tool returned no content)') + restarted,
        chars: text.length,
        ...(bounded.truncated ? { truncated: true } : {}),
        ...(isError ? { code: 'tool_error' as const } : {}),
      };
    },

    /** Ends the run's sessions on this worker (its stdio servers' processes go with them). */
    async mcpClose(input: { runId: string; workspace?: unknown }): Promise<{ closed: number }> {
      return { closed: await sessions.closeRun(input.runId) };
    },
  };
}

function failed(code: McpFailureCode, text: string): McpCallResult {
  return { ok: false, text, chars: 0, code };
}

function schemaOf(
  server: string,
  tool: { name: string; description?: string; inputSchema: unknown },
  problems: string[],
): McpToolSchema | undefined {
  const name = mcpExposedName(server, tool.name);
  if (!name) {
    problems.push(
      `${server}: the tool ${JSON.stringify(tool.name.slice(0, 80))} has a name a model cannot call (letters, digits, _ and -, 64 in all), so it is left out`,
    );
    return undefined;
  }
  const schema = (tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>;
  if (JSON.stringify(schema).length > MCP_SCHEMA_MAX) {
    problems.push(`${server}: the input schema of ${tool.name} is over ${MCP_SCHEMA_MAX} characters, so it is left out`);
    return undefined;
  }
  const description = (tool.description ?? '').trim() || `The ${tool.name} tool of the MCP server ${server}.`;
  return {
    name,
    server,
    tool: tool.name,
    description: description.length > MCP_DESCRIPTION_MAX ? `${description.slice(0, MCP_DESCRIPTION_MAX - 1)}…` : description,
    inputSchema: { ...schema, type: 'object' },
  };
}

function failureCode(error: unknown, session: McpSession): McpFailureCode {
  const code = (error as { code?: unknown }).code;
  const tooLarge = (candidate: unknown) =>
    candidate instanceof McpAnswerTooLarge ||
    /exceeded maximum size|answer was over/.test(String((candidate as Error | undefined)?.message));
  if (tooLarge(session.lastError) || tooLarge(error) || tooLarge((error as { cause?: unknown }).cause)) return 'too_large';
  if (code === REQUEST_TIMEOUT) return 'timeout';
  if (code === CONNECTION_CLOSED || !session.alive) return 'crashed';
  // A JSON-RPC error the server answered with (unknown tool, invalid arguments): the server itself is fine.
  if (typeof code === 'number' && code < 0) return 'tool_error';
  return 'protocol';
}

function failureText(code: McpFailureCode, input: McpCallInput, timeoutMs: number, error: unknown, session: McpSession): string {
  const name = `mcp__${input.server}__${input.tool}`;
  if (code === 'timeout')
    return `${name} did not answer within ${timeoutMs} ms, so the call was abandoned; the server will be started afresh for the next call. Its effect is unknown: check before repeating it.`;
  if (code === 'crashed')
    return `The MCP server ${input.server} stopped during ${name} (${describe(error, session)}). It will be started again at the next call; this call's effect is unknown.`;
  if (code === 'too_large')
    return `The MCP server ${input.server} answered ${name} with a message over ${MCP_MAX_MESSAGE_BYTES / (1024 * 1024)} MiB, so it was refused and the server will be started afresh. Ask for less (a narrower query, a page).`;
  if (code === 'tool_error') return `${name} failed: ${describe(error)}`;
  return `${name} failed in the MCP exchange: ${describe(error, session)}`;
}
