import type { McpCallInput, McpDiscoverInput } from '../contracts/mcp-calls';
import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { McpActivities } from '../activity-proxies';
import type { RunInput } from '../contracts';
import { FakeClock } from '../test-support';
import { McpTools } from './mcp-tools';
import { RunState } from './run-state';

const workspace = { key: 'thread:t', network: false };

function fixture(calls: { discover: McpDiscoverInput[]; call: McpCallInput[] } = { discover: [], call: [] }, carry?: RunInput['carry']) {
  const profile = resolveProfile({
    agent: getAgent(builtinCatalog(), 'general')!,
    config: defaultAgentsConfig(),
    directives: {},
    mcp: {
      servers: [
        { server: 'files', transport: 'stdio' },
        { server: 'tracker', transport: 'http', tools: ['search'] },
      ],
      off: [],
    },
  });
  const input: RunInput = {
    threadId: 't',
    profile,
    system: 'You are General.',
    request: 'r',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'cli' },
    ...(carry ? { carry } : {}),
  };
  const state = new RunState(input, new FakeClock().now());
  const activities: McpActivities = {
    mcpDiscover: async (request) => {
      calls.discover.push(request);
      if (request.attachment.server === 'files') throw new Error('the worker went away');
      return {
        server: 'tracker',
        tools: [
          { name: 'mcp__tracker__search', server: 'tracker', tool: 'search', description: 'Find issues.', inputSchema: { type: 'object' } },
        ],
        problems: [],
      };
    },
    mcpCall: async (request) => {
      calls.call.push(request);
      return request.arguments.q === 'boom'
        ? { ok: false, text: 'mcp__tracker__search did not answer within 2000 ms', chars: 0, code: 'timeout' }
        : { ok: true, text: 'found 3', chars: 7 };
    },
    mcpClose: async () => ({ closed: 1 }),
  };
  return { state, calls, tools: new McpTools({ runId: 'run:t:1', state, workspace, activities }) };
}

describe("a run's MCP tools", () => {
  it('are discovered once at the start into the state, with a prompt block that stays put', async () => {
    const { state, calls, tools } = fixture();
    await tools.discover();
    // A stdio server is asked for in the run's workspace (its host); an HTTP one is not.
    expect(calls.discover.map((request) => [request.attachment.server, request.workspace?.key])).toEqual([
      ['files', 'thread:t'],
      ['tracker', undefined],
    ]);
    expect(state.mcp?.tools.map((tool) => tool.name)).toEqual(['mcp__tracker__search']);
    expect(state.mcp?.problems).toEqual(['the MCP server files was not reached: the worker went away']);
    expect(state.system).toBe(`You are General.\n\n${state.mcp!.block}`);
    expect(state.mcp!.block).toContain('- mcp__tracker__search: Find issues.');
    expect(state.mcp!.block).toContain('Not offered: the MCP server files was not reached');

    // A run that continued as new carries its list and never discovers again.
    const again = fixture(undefined, state.carry());
    await again.tools.discover();
    expect(again.calls.discover).toEqual([]);
    expect(again.state.system).toBe(state.system);
  });

  it("calls a tool by the server's name for it, counts it, and answers failures as data", async () => {
    const { state, calls, tools } = fixture();
    await tools.discover();
    const ok = await tools.execute({ id: '1', name: 'mcp__tracker__search', input: { q: 'login' } });
    const hung = await tools.execute({ id: '2', name: 'mcp__tracker__search', input: { q: 'boom' } });
    const unknown = await tools.execute({ id: '3', name: 'mcp__tracker__delete', input: {} });
    expect([ok, hung, unknown].map((result) => result.isError ?? false)).toEqual([false, true, true]);
    expect(calls.call[0]).toEqual({ runId: 'run:t:1', server: 'tracker', tool: 'search', arguments: { q: 'login' } });
    expect(state.mcp?.usage).toEqual({ tracker: { calls: 2, errors: 1, chars: 7 } });
    expect(state.cost.mcpCalls).toBe(2);
    expect(state.record('run:t:1', 0).mcp).toEqual({
      usage: { tracker: { calls: 2, errors: 1, chars: 7 } },
      tools: ['mcp__tracker__search'],
      problems: ['the MCP server files was not reached: the worker went away'],
    });
  });
});
