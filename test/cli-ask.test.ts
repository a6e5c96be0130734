import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../infra/paths';
import { testTemporalAddress, uniqueTaskQueue } from './helpers/temporal';
import { testScripts, type TestScripts } from './helpers/scripts';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';

jest.setTimeout(90_000);
const run = promisify(execFile);

/**
 * The operator CLI as a person uses it: `node bin/switchboard.js …` subprocesses against the
 * test server, served by a worker-main process whose working directory is the repository
 * (so `scripted:examples/hello.yaml` resolves as it does on a fresh clone).
 */
describe('switchboard ask, runs, steer and stop', () => {
  const root = projectRoot();
  const taskQueue = uniqueTaskQueue('cli');
  let dir: string;
  let scripts: TestScripts;
  let worker: WorkerProcess;
  const cliEnv = () => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    TEMPORAL_ADDRESS: testTemporalAddress(),
    SWITCHBOARD_TASK_QUEUE: taskQueue,
    LOG_LEVEL: 'warn',
  });
  /** Runs the CLI to its end; a non-zero exit is returned, not thrown. */
  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [join(root, 'bin', 'switchboard.js'), ...args], {
        cwd: root,
        env: cliEnv(),
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  };
  let helloRunId = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));
    // The examples as on a fresh clone, plus this test's own scripted directory (kit).
    scripts = testScripts(dir);
    worker = await startWorkerProcess({
      taskQueue,
      dataDir: join(dir, 'data'),
      cwd: root,
      env: { SWITCHBOARD_CONFIG: scripts.configFile },
    });
  });
  afterAll(async () => {
    await worker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ask prints the thread, the run, status lines and the record', async () => {
    const result = await cli('ask', '--agent', 'explore', '--model', 'scripted:examples/hello.yaml', 'say hello');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    const thread = /^thread (thread:cli:[0-9a-f-]+)$/.exec(lines[0] ?? '')?.[1];
    expect(thread).toBeDefined();
    const runLine = /^run (\S+) \((\w+)\)$/.exec(lines[1] ?? '');
    expect(runLine?.[1]).toBe(`run:${thread}:1`);
    helloRunId = runLine![1];
    expect(lines.some((line) => /^\[(starting|thinking|tools|waiting|summarising|finished)\] turn \d+\/\d+ \d+s/.test(line))).toBe(true);
    expect(result.stdout).toContain('outcome: completed');
    expect(result.stdout).toMatch(/model scripted:examples\/hello\.yaml \(directive\)/);
    expect(result.stdout).toContain('— Saying hello from the sandbox');
    expect(result.stdout).toMatch(
      /agent: explore .*\nturns: 2 .*tool calls 2 · children 0\n\nThe sandbox answered:\nexit code 0\nhello from the sandbox\nLinux\n/,
    );
  });

  it('runs list --json shows the run, and runs get prints its record', async () => {
    let listed: Array<{ workflowId: string; status: string; outcome: string }> = [];
    // Visibility trails the workflow by a moment.
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const result = await cli('runs', 'list', '--json', '--limit', '200');
      expect(result.code).toBe(0);
      listed = JSON.parse(result.stdout) as typeof listed;
      if (listed.some((row) => row.workflowId === helloRunId && row.outcome === 'completed')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(listed).toContainEqual(expect.objectContaining({ workflowId: helloRunId, status: 'COMPLETED', outcome: 'completed' }));
    const got = await cli('runs', 'get', helloRunId);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain('outcome: completed');
    expect(got.stdout).toContain('The sandbox answered:\nexit code 0\nhello from the sandbox');
  });

  it('steer on a finished run is refused in one clear line, exit code 1, no stack trace', async () => {
    const result = await cli('steer', helloRunId, 'use the v2 API');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toMatch(/^steer refused: the run has finished \(completed\)$/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const unknown = await cli('steer', 'run:thread:cli:no-such-thread:1', 'hello');
    expect(unknown).toMatchObject({ code: 1, stderr: 'steer refused: no workflow run:thread:cli:no-such-thread:1\n' });
  });

  it('refusals and usage mistakes exit non-zero in one line: a refused ask, a bad --limit, a stop of a finished run', async () => {
    // An agent nobody has is refused at the door, before a thread exists.
    const refused = await cli('ask', '--agent', 'no-such-agent', '--model', 'scripted:examples/hello.yaml', 'hello');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^Not started \(agent_unknown\): There is no agent called "no-such-agent"/);
    // One the thread refuses (a model outside the list is fine for the CLI; a message with no request is not).
    const inThread = await cli('ask', '--agent', 'general', '');
    expect(inThread.code).toBe(1);
    expect(inThread.stdout).toMatch(/^thread thread:cli:\S+\n/);
    expect(inThread.stdout).not.toContain('outcome:');
    const limit = await cli('runs', 'list', '--limit', 'abc');
    expect(limit.code).toBe(1);
    expect(limit.stdout).toBe('');
    expect(limit.stderr).toContain("option '--limit <n>' argument 'abc' is invalid. expected a whole number of at least 1.");
    expect((await cli('units', 'list', '--limit', '0')).code).toBe(1);
    const stop = await cli('stop', helloRunId);
    expect(stop).toEqual({
      code: 1,
      stdout: '',
      stderr: `stop refused: ${helloRunId} has already finished (completed); nothing to stop\n`,
    });
  });

  it('stuck lists every kind, and runs list --stuck the same set', async () => {
    const stuck = await cli('stuck', '--json');
    const listed = await cli('runs', 'list', '--stuck', '--json');
    // Exit 1 when it lists any (other suites on this server leave some stuck on purpose).
    expect(stuck.code).toBe((JSON.parse(stuck.stdout) as unknown[]).length > 0 ? 1 : 0);
    expect(JSON.parse(listed.stdout)).toEqual(JSON.parse(stuck.stdout));
  });

  it('stop ends a running run as stopped', async () => {
    const model = scripts.write(
      'slow',
      'turns:\n  - text: "Sleeping."\n    toolCalls:\n      - { name: bash, input: { command: "sleep 5151; echo woke" } }\n  - text: "should not be reached"\n',
    );
    const asking = spawn(
      process.execPath,
      [join(root, 'bin', 'switchboard.js'), 'ask', '--agent', 'coding', '--model', model, 'sleep a while'],
      { cwd: root, env: cliEnv() },
    );
    let out = '';
    asking.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => asking.on('exit', resolve));
    const deadline = Date.now() + 30_000;
    while (!/last tool bash/.test(out) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const runId = /^run (\S+) /m.exec(out)?.[1];
    expect(runId).toBeDefined();
    const stopped = await cli('stop', runId!, '--reason', 'enough', '--by', 'operator');
    expect(stopped).toMatchObject({ code: 0, stdout: `stop sent to ${runId}\n` });
    expect(await exited).toBe(0);
    expect(out).toContain('outcome: stopped (stopped by operator: enough)');
  });
});
