import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandEnvironment } from '../activities/sandbox/command-environment';
import { WorkspaceFiles } from '../activities/sandbox/files';
import { markedPids, requireBubblewrap } from '../activities/sandbox/test-support';
import { bundleStdioServer, startHttpMcpServer, type HttpMcpServer } from './helpers/mcp-servers';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(180_000);

/**
 * MCP servers as tools, end to end on the official SDK: a stdio server that runs inside the run's
 * sandbox as its unprivileged user (bundled with the SDK into one file the test writes into the
 * workspace), and a streamable-HTTP server beside the test, reached through the address guard with
 * a credential from the worker's environment. One run calls both, hangs one, crashes the other,
 * asks for too much, and is refused a server the admission keeps from its person.
 */
describe('MCP servers as tools', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-mcp-'));
  let kit: RunKit;
  let http: HttpMcpServer;
  let bundle: string;

  beforeAll(async () => {
    await requireBubblewrap();
    bundle = await bundleStdioServer(dir);
    http = await startHttpMcpServer();
    const remote = { transport: 'http', url: http.url, network: 'private', callTimeoutMs: 2_000, maxResultChars: 5_000 } as const;
    kit = await startRunKit('mcp', {
      mcp: {
        env: { TEST_MCP_TOKEN: 'tok-from-the-worker' },
        config: {
          servers: {
            local: {
              transport: 'stdio',
              command: 'node',
              args: ['/workspace/.mcp/server.js'],
              env: { TEST_MODE: 'sandboxed' },
              callTimeoutMs: 5_000,
              maxResultChars: 5_000,
            },
            remote: { ...remote, headers: [{ name: 'Authorization', fromEnv: 'TEST_MCP_TOKEN', prefix: 'Bearer ' }] },
            // The same server, but limited to someone else: the admission leaves it out of this person's runs.
            restricted: { ...remote, people: ['somebody-else'] },
            // The same server under the door's policy: a loopback address is refused after resolution.
            outside: { transport: 'http', url: http.url },
          },
          agents: {
            general: [
              { server: 'local', tools: ['add', 'whereami', 'crash', 'big'] },
              { server: 'remote', tools: ['add', 'whereami', 'hang', 'big'] },
              { server: 'restricted' },
              { server: 'outside' },
            ],
          },
        },
      },
    });
  });

  afterAll(async () => {
    await kit?.close();
    await http?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('calls a stdio server in the sandbox and an HTTP server; a hang, a crash and an oversized answer each cost one tool error', async () => {
    process.env.SWITCHBOARD_MCP_CANARY = 'the-worker-secret';
    const threadId = `thread:cli:mcp-${process.pid}-${Date.now()}`;
    // The stdio server's program lives in the workspace, as a repository's own server would.
    const prepared = await kit.sandboxHost.prepare({ key: threadId, network: false });
    expect(await new WorkspaceFiles(kit.sandboxHost, prepared).write('/workspace/.mcp/server.js', bundle)).toMatchObject({ ok: true });

    const call = (name: string, input: object = {}) => ({ name, input });
    const model = kit.script('mcp', [
      { text: 'Adding on both.', toolCalls: [call('mcp__local__add', { a: 2, b: 3 }), call('mcp__remote__add', { a: 4, b: 5 })] },
      { text: 'Where are you?', toolCalls: [call('mcp__local__whereami'), call('mcp__remote__whereami')] },
      { text: 'This one hangs.', toolCalls: [call('mcp__remote__hang')] },
      { text: 'Again after the hang.', toolCalls: [call('mcp__remote__add', { a: 1, b: 1 })] },
      { text: 'This one crashes.', toolCalls: [call('mcp__local__crash')] },
      { text: 'Again after the crash.', toolCalls: [call('mcp__local__add', { a: 10, b: 20 })] },
      { text: 'Far too much.', toolCalls: [call('mcp__remote__big', { chars: 9_000_000 })] },
      { text: 'Not mine.', toolCalls: [call('mcp__restricted__add', { a: 1, b: 2 }), call('mcp__local__hidden')] },
      // Last, so the run's conversation still holds it whole (older results are cut again).
      { text: 'Too much.', toolCalls: [call('mcp__local__big', { chars: 100_000 })] },
      {
        text: [
          'LOCAL-WHERE {{lastToolResult:mcp__local__whereami}}',
          'REMOTE-WHERE {{lastToolResult:mcp__remote__whereami}}',
          'LOCAL-ADD {{lastToolResult:mcp__local__add}}',
          'REMOTE-ADD {{lastToolResult:mcp__remote__add}}',
          'HANG {{lastToolResult:mcp__remote__hang}}',
          'CRASH {{lastToolResult:mcp__local__crash}}',
          'BIG {{lastToolResult:mcp__local__big}}',
          'HUGE {{lastToolResult:mcp__remote__big}}',
        ].join('\n'),
      },
    ]);
    const { runId } = await kit.start('use the team tools', { agent: 'general', model, thread: threadId });
    const record = await kit.result(runId);
    delete process.env.SWITCHBOARD_MCP_CANARY;

    expect(record.outcome).toBe('completed');
    // Discovered once at the start, filtered by the agent's allowlists; the admission and the door's policy left two servers out.
    expect(record.mcp?.tools).toEqual([
      'mcp__local__add',
      'mcp__local__whereami',
      'mcp__local__crash',
      'mcp__local__big',
      'mcp__remote__add',
      'mcp__remote__whereami',
      'mcp__remote__hang',
      'mcp__remote__big',
    ]);
    expect(record.profile.mcp?.off).toEqual([
      expect.objectContaining({ server: 'restricted', code: 'mcp_server_restricted', rule: 'mcp.servers.restricted.people' }),
    ]);
    expect(record.mcp?.problems).toEqual([expect.stringMatching(/outside did not start: .*127\.0\.0\.1 is a loopback address/)]);

    expect(record.toolCalls.map((entry) => [entry.name, entry.ok])).toEqual([
      ['mcp__local__add', true],
      ['mcp__remote__add', true],
      ['mcp__local__whereami', true],
      ['mcp__remote__whereami', true],
      ['mcp__remote__hang', false],
      ['mcp__remote__add', true],
      ['mcp__local__crash', false],
      ['mcp__local__add', true],
      ['mcp__remote__big', false],
      ['mcp__restricted__add', false],
      ['mcp__local__hidden', false],
      ['mcp__local__big', true],
    ]);
    const text = record.finalText;
    expect(text).toContain('LOCAL-ADD stdio says 10 + 20 = 30 (the server was started again for this call)');
    expect(text).toContain('REMOTE-ADD http says 1 + 1 = 2');
    // The stdio server ran as the sandbox user in the workspace, with the sandbox's environment only.
    const local = JSON.parse(/LOCAL-WHERE (\{.*\})/.exec(text)![1]) as { uid: number; cwd: string; envKeys: string[]; canary: string };
    expect(local.uid).not.toBe(0);
    expect(local.uid).not.toBe(process.getuid?.());
    expect(local.cwd).toBe('/workspace');
    expect(local.canary).toBe('absent');
    // Exactly the sandbox's own environment (as a command's), the sandbox user's names, what the config gave it, and the shell's folder.
    const sandboxKeys = Object.keys(commandEnvironment(prepared.layout, prepared.isolation.mode, { port: 1, gitBaseUrl: 'https://x' }));
    expect(local.envKeys).toEqual([...sandboxKeys, 'LOGNAME', 'OLDPWD', 'PWD', 'SHELL', 'TEST_MODE', 'USER'].sort());
    // The HTTP server got the worker's credential; the sandbox never saw it.
    expect(text).toMatch(/REMOTE-WHERE \{.*"authorization":"Bearer tok-from-the-worker"/);
    expect(http.authorizations).toContain('Bearer tok-from-the-worker');
    expect(JSON.stringify(local)).not.toContain('tok-from-the-worker');
    // A hang is one bounded error; a crash is reported and the server started again; answers are bounded.
    expect(text).toMatch(/HANG mcp__remote__hang did not answer within 2000 ms/);
    expect(text).toMatch(/CRASH The MCP server local stopped during mcp__local__crash/);
    expect(text).toMatch(
      /BIG BEGIN-x+\n\[… \d+ characters of the server's answer cut: it was 100010 characters, over the 5000-character bound …\]\nx+-END/,
    );
    expect(text).toMatch(/HUGE The MCP server remote answered mcp__remote__big with a message over 8 MiB/);
    expect(record.toolCalls[9].error).toMatch(/not available to this run/);
    expect(text).not.toMatch(/HUGE.*started again/);
    // Counted in the run's usage.
    expect(record.cost.mcpCalls).toBe(10);
    expect(record.mcp?.usage.local).toEqual({ calls: 5, errors: 1, chars: expect.any(Number) });
    expect(record.mcp?.usage.local.chars).toBeGreaterThan(100_000);
    expect(record.mcp?.usage.remote).toMatchObject({ calls: 5, errors: 2 });
    // The run's end closed its stdio server: nothing of it is left in the sandbox.
    await waitUntil(
      async () => markedPids(threadId),
      (pids) => pids.length === 0,
    );
  });
});
