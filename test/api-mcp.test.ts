import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { projectRoot } from '../infra/paths';
import { reportUri } from '../server/mcp/mcp-server';
import { KIT_HELLO, startApiKit, type ApiKit } from './helpers/api-kit';
import { testTemporalAddress } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(90_000);

const HELLO = KIT_HELLO;
const TOOLS = ['ask', 'job_status', 'list_agents', 'plan', 'plan_status', 'ship', 'steer', 'stop', 'unit_status'];

/**
 * MCP through the SDK's own client, over streamable HTTP against the Express app and over
 * stdio against `bin/switchboard.js mcp` as a subprocess, on the real server and a scripted model.
 */
describe('MCP server', () => {
  let api: ApiKit;
  const clients: Client[] = [];

  beforeAll(async () => {
    api = await startApiKit('api-mcp', { tokens: { alice: { user: 'alice' }, carol: { user: 'carol', selfServe: true } } });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await api?.close();
  });

  const overHttp = async (token: string) => {
    const client = new Client({ name: 'switchboard-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${api.origin}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = (result: CallToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

  it('over streamable HTTP: lists the tools, runs ask to completion, and reads the report as a resource', async () => {
    const client = await overHttp(api.tokens.alice);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS);

    const asked = await call(client, 'ask', { text: 'say hello', model: HELLO, agent: 'general' });
    expect(asked.isError).toBeFalsy();
    expect(asked.structuredContent).toMatchObject({
      state: 'completed',
      outcome: 'completed',
      finalText: 'Hello from Switchboard. You asked: say hello',
    });
    expect(text(asked)).toMatch(/^outcome: completed\nagent: general /);
    const jobId = (asked.structuredContent as { jobId: string }).jobId;
    expect(jobId).toMatch(/^run:thread:api:[0-9a-f-]{36}:1$/);

    expect(text(await call(client, 'job_status', { jobId }))).toBe(text(asked));
    const resource = await client.readResource({ uri: reportUri(jobId) });
    expect(resource.contents[0]).toMatchObject({ uri: reportUri(jobId), mimeType: 'text/plain', text: text(asked) });
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual(['switchboard://jobs/{jobId}/report']);
    const listed = await waitUntil(
      () => client.listResources(),
      (found) => found.resources.some((entry) => entry.uri === reportUri(jobId)),
    );
    expect(listed.resources.length).toBeGreaterThan(0);

    expect(await client.listTools().then(() => 'still answering')).toBe('still answering');
  });

  it('steers and stops a job that outlives the wait, and names the code of a refusal', async () => {
    const client = await overHttp(api.tokens.alice);
    const slow = api.kit.script('mcp-slow', [{ text: 'Thinking for a long time.', delayMs: 600_000 }]);
    const asked = await call(client, 'ask', { text: 'take your time', model: slow, waitSeconds: 0 });
    expect(asked.structuredContent).toMatchObject({ kind: 'run', state: 'running' });
    expect(text(asked)).toMatch(/is still running; call job_status/);
    const jobId = (asked.structuredContent as { jobId: string }).jobId;
    await waitUntil(
      () => call(client, 'job_status', { jobId }),
      (status) => (status.structuredContent as { status?: { phase: string } }).status?.phase === 'thinking',
    );
    expect(text(await call(client, 'steer', { id: jobId, text: 'use the v2 API' }))).toBe(`Steer accepted by ${jobId}.`);
    expect(text(await call(client, 'stop', { id: jobId, reason: 'enough' }))).toBe(`Stop sent to ${jobId}.`);
    const stopped = await waitUntil(
      () => call(client, 'job_status', { jobId }),
      (status) => (status.structuredContent as { state: string }).state === 'completed',
    );
    expect(stopped.structuredContent).toMatchObject({ outcome: 'stopped' });
    expect(text(stopped)).toMatch(/^outcome: stopped \(stopped by alice: enough\)/);

    const late = await call(client, 'steer', { id: jobId, text: 'too late' });
    expect(late).toMatchObject({ isError: true, structuredContent: { code: 'steer_rejected' } });
    expect(text(late)).toBe('steer_rejected: The run has finished (stopped).');
    const missing = await call(client, 'unit_status', { unitId: 'unit:acme/app#404' });
    expect(text(missing)).toMatch(/^not_found: /);
    const noShip = await call(client, 'ship', { repo: 'acme/app' });
    expect(noShip.isError).toBe(true);
  });

  it('a self-serve token never reaches an agent with a shell: refused with the reason, directly and through delegation', async () => {
    const client = await overHttp(api.tokens.carol);
    const agents = await call(client, 'list_agents', {});
    expect((agents.structuredContent as { agents: Array<{ id: string }> }).agents.map((agent) => agent.id)).toEqual([
      'general',
      'research',
      'conductor',
    ]);

    for (const agent of ['explore', 'coding', 'review', 'ship']) {
      const refused = await call(client, 'ask', { text: 'look at the build', agent });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ code: 'access_refused', refusal: 'self_serve_shell' });
      expect(text(refused)).toMatch(
        new RegExp(`^access_refused: The ${agent} agent holds a shell, and a self-serve MCP caller never reaches an agent with a shell\\.`),
      );
    }
    const shipped = await call(client, 'ship', { repo: 'acme/app', request: 'add a changelog' });
    expect(shipped.structuredContent).toMatchObject({ code: 'access_refused', refusal: 'self_serve_shell' });

    // The conductor has no shell, but its task tool could start an explore run: the rule follows the caller into it.
    const delegating = api.kit.script('delegate', [
      {
        text: 'Delegating.',
        toolCalls: [{ name: 'task', input: { agent_type: 'explore', name: 'probe', prompt: 'time the build', mode: 'sync' } }],
      },
      { text: 'Child said: {{lastToolResult:task}}' },
    ]);
    const asked = await call(client, 'ask', { text: 'time the build', agent: 'conductor', model: delegating });
    expect(asked.structuredContent).toMatchObject({ state: 'completed', outcome: 'completed' });
    expect((asked.structuredContent as { finalText: string }).finalText).toMatch(
      /^Child said: The explore agent holds a shell, and a self-serve MCP caller never reaches/,
    );
  });

  it('over stdio: `switchboard mcp` lists the tools and runs ask to completion; a bad token is one line and exit 1', async () => {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TEMPORAL_ADDRESS: testTemporalAddress(),
      SWITCHBOARD_TASK_QUEUE: api.kit.taskQueue,
      SWITCHBOARD_API_TOKENS: api.tokensJson,
      LOG_LEVEL: 'warn',
    };
    const bin = join(projectRoot(), 'bin', 'switchboard.js');
    const client = new Client({ name: 'switchboard-test-stdio', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'mcp'],
        cwd: api.kit.dir,
        env: { ...env, SWITCHBOARD_TOKEN: api.tokens.alice },
        stderr: 'pipe',
      }),
    );
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    const asked = await call(client, 'ask', { text: 'say hello over stdio', model: HELLO });
    expect(asked.structuredContent).toMatchObject({
      state: 'completed',
      outcome: 'completed',
      finalText: 'Hello from Switchboard. You asked: say hello over stdio',
    });
    await client.close();

    const failure = await promisify(execFile)(process.execPath, [bin, 'mcp'], {
      cwd: api.kit.dir,
      env: { ...env, SWITCHBOARD_TOKEN: 'sbt_wrong' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(failure).toEqual({ code: 1, stderr: 'SWITCHBOARD_TOKEN is not a token listed under api.tokens (or SWITCHBOARD_API_TOKENS)\n' });
  });
});
