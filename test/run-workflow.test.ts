import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { runStatusQuery, stopSignal } from '../workflows/contracts';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { testTemporalAddress } from './helpers/temporal';
import { waitFor } from './helpers/wait';

jest.setTimeout(120_000);
const run = promisify(execFile);

describe('agentRunWorkflow on the real server', () => {
  let kit: RunKit;
  beforeAll(async () => {
    kit = await startRunKit('runs');
  });
  afterAll(async () => {
    await kit.close();
  });

  it('runs bash and write_file in the workspace and ends with the record', async () => {
    const model = kit.script('files', [
      {
        text: 'Writing a note.',
        toolCalls: [
          { name: 'write_file', input: { path: 'notes/hello.txt', content: 'written by the run\n' } },
          { name: 'bash', input: { command: 'cat notes/hello.txt && echo "lines: $(wc -l < notes/hello.txt)"' } },
        ],
      },
      { text: 'The file says: {{lastToolResult:bash}}' },
    ]);
    const { runId, threadId } = await kit.start('write a note', { agent: 'coding', model });
    expect(runId).toBe(`run:${threadId}:1`);
    const record = await kit.result(runId);
    expect(record).toMatchObject({ outcome: 'completed', turns: 2, runId, threadId });
    expect(record.profile).toMatchObject({ agent: 'coding', machine: 'repo-resident', identity: 'write' });
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['write_file', true],
      ['bash', true],
    ]);
    expect(record.finalText).toContain('written by the run');
    expect(record.finalText).toContain('lines: 1');
  });

  it('answers a tool outside the toolset as an error and never executes it', async () => {
    const model = kit.script('outside', [
      { text: 'Trying to write.', toolCalls: [{ name: 'write_file', input: { path: 'forbidden.txt', content: 'x' } }] },
      { text: 'Could not: {{lastToolResult}}' },
    ]);
    const { runId, threadId } = await kit.start('look around', { agent: 'explore', model });
    const record = await kit.result(runId);
    expect(record.outcome).toBe('completed');
    expect(record.toolCalls).toEqual([
      expect.objectContaining({
        name: 'write_file',
        ok: false,
        error: expect.stringContaining('not available to this run (agent explore)'),
      }),
    ]);
    expect(record.finalText).toContain('it was not executed');
    await expect(run('find', [kit.dataDir, '-name', 'forbidden.txt']).then((out) => out.stdout.trim())).resolves.toBe('');
    expect(threadId).toMatch(/^thread:cli:/);
  });

  it('leaves tools without a backend out of the run and tells the model why', async () => {
    // This kit configures no search provider, no web fetch, no skill folders and no GitHub credential.
    const model = kit.script('hollow', [
      { text: 'Searching.', toolCalls: [{ name: 'web_search', input: { query: 'anything' } }] },
      { text: 'Could not: {{lastToolResult}}' },
    ]);
    const { runId } = await kit.start('look it up', { agent: 'research', model });
    const record = await kit.result(runId);
    expect(record.profile.tools).toEqual(['update_status']);
    expect(record.profile.toolsOff?.map((off) => off.tool)).toEqual(
      expect.arrayContaining(['web_search', 'web_fetch', 'list_skills', 'github_repos']),
    );
    expect(record.toolCalls).toEqual([
      expect.objectContaining({ name: 'web_search', ok: false, error: expect.stringContaining('not available to this run') }),
    ]);
    const history = await kit.env.client.workflow.getHandle(runId).fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    const { system } = JSON.parse(Buffer.from(payload!).toString('utf8')) as { system: string };
    expect(system).toContain('Turned off in this deployment');
    expect(system).toContain('web_search (no search provider is configured (web.search.provider))');
  });

  it('takes a steer sent with the temporal CLI before its next turn', async () => {
    const model = kit.script('steer', [
      { text: 'Working with v1.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3 && echo slept' } }] },
      { alternatives: [{ when: { lastUserIncludes: 'v2' }, text: 'Switching to the v2 API as asked.' }, { text: 'Staying on v1.' }] },
    ]);
    const { runId } = await kit.start('use the api', { agent: 'coding', model });
    await waitFor(async () => (await kit.env.client.workflow.getHandle(runId).query(runStatusQuery)).phase === 'tools');
    const temporal = resolveTemporalBinary('cli').path;
    await run(temporal, [
      'workflow',
      'signal',
      '--address',
      testTemporalAddress(),
      '--workflow-id',
      runId,
      '--name',
      'steer',
      '--input',
      '{"text":"use the v2 API"}',
    ]);
    const record = await kit.result(runId);
    expect(record.finalText).toBe('Switching to the v2 API as asked.');
  });

  it('stops mid-command: the process group is killed and the run settles stopped', async () => {
    const model = kit.script('stop', [
      { text: 'Long job.', toolCalls: [{ name: 'bash', input: { command: '(sleep 3171 &) ; sleep 3172; echo never' } }] },
      { text: 'should not be reached' },
    ]);
    const { runId } = await kit.start('wait a long time', { agent: 'coding', model });
    await waitFor(async () => (await pids('sleep 3172')).length > 0);
    await kit.env.client.workflow.getHandle(runId).signal(stopSignal, { reason: 'enough', by: 'tester' });
    const record = await kit.result(runId);
    expect(record.outcome).toBe('stopped');
    expect(record.endedBy).toBe('stopped by tester: enough');
    expect(await pids('sleep 3172')).toEqual([]);
    expect(await pids('sleep 3171')).toEqual([]);
  });

  it("refuses path traversal and keeps the worker's secrets out of the sandbox", async () => {
    process.env.GITHUB_WRITE_TOKEN = 'ghp_secret_from_the_worker_env';
    const model = kit.script('escape', [
      {
        text: 'Probing.',
        toolCalls: [
          { name: 'read_file', input: { path: '../../../../etc/passwd' } },
          { name: 'bash', input: { command: 'env; echo "token=${GITHUB_WRITE_TOKEN:-absent}"' } },
        ],
      },
      { text: 'The sandbox environment: {{lastToolResult:bash}}' },
    ]);
    const { runId } = await kit.start('probe', { agent: 'coding', model });
    const record = await kit.result(runId);
    delete process.env.GITHUB_WRITE_TOKEN;
    expect(record.toolCalls[0]).toMatchObject({ name: 'read_file', ok: false, error: expect.stringContaining('path_outside_workspace') });
    expect(record.toolCalls[1]).toMatchObject({ name: 'bash', ok: true });
    expect(record.finalText).toContain('token=absent');
    expect(record.finalText).toMatch(/PATH=/);
    expect(record.finalText).not.toContain('ghp_secret_from_the_worker_env');
  });

  it('waits for a detached job with workflow timers, after the command that started it returned', async () => {
    const model = kit.script('job', [
      {
        text: 'Starting a job.',
        toolCalls: [
          {
            name: 'bash',
            input: {
              command:
                "setsid -f sh -c 'sleep 2; echo job-output > /tmp/job.log 2>&1; echo 7 > /tmp/job.exit' </dev/null >/dev/null 2>&1; echo started",
            },
          },
        ],
      },
      {
        text: 'Waiting.',
        toolCalls: [{ name: 'wait_for_job', input: { exitFile: '/tmp/job.exit', logFile: '/tmp/job.log', pollSeconds: 10 } }],
      },
      { text: 'Job said: {{lastToolResult:wait_for_job}}' },
    ]);
    const { runId } = await kit.start('run a job', { agent: 'explore', model });
    const record = await kit.result(runId);
    expect(record.outcome).toBe('completed');
    expect(record.turns).toBe(3);
    expect(record.jobWaits.polls).toBeGreaterThanOrEqual(2);
    expect(record.finalText).toMatch(/exit code 7/);
    expect(record.finalText).toContain('job-output');
  });

  it('runs three background task children of one turn concurrently', async () => {
    const child = kit.script('child', [
      { text: 'Child working.', toolCalls: [{ name: 'bash', input: { command: 'sleep 2; echo child-done' } }] },
      { text: 'Child finished: {{lastToolResult:bash}}' },
    ]);
    const model = kit.script('parent', [
      {
        text: 'Fanning out.',
        toolCalls: ['a', 'b', 'c'].map((name) => ({
          name: 'task',
          input: { agent_type: 'worker', name: `part-${name}`, prompt: `do part ${name}`, model: child, mode: 'background' },
        })),
      },
      { text: 'All parts reported: {{lastUser}}' },
      { text: 'still collecting' },
      { text: 'done collecting' },
    ]);
    const { runId } = await kit.start('split the work', { agent: 'coding', model });
    const record = await kit.result(runId);
    expect(record.outcome).toBe('completed');
    expect(record.children).toHaveLength(3);
    expect(record.children.map((c) => c.workflowId)).toEqual(['a', 'b', 'c'].map((name, k) => `${runId}/task-${k + 1}-part-${name}`));
    expect(record.children.every((c) => c.outcome === 'completed' && c.agent === 'worker')).toBe(true);
    const latestStart = Math.max(...record.children.map((c) => c.startedAt));
    const earliestEnd = Math.min(...record.children.map((c) => c.endedAt!));
    expect(latestStart).toBeLessThan(earliestEnd);
  });
});

async function pids(pattern: string): Promise<string[]> {
  try {
    const { stdout } = await run('pgrep', ['-f', pattern]);
    return stdout.trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}
