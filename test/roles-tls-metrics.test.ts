import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { stringify } from 'yaml';
import { hashToken, newToken } from '../infra/api-tokens';
import { projectRoot } from '../infra/paths';
import { freePort } from './helpers/ports';
import { testTemporalAddress, uniqueTaskQueue } from './helpers/temporal';
import { makeTestCertificates, startTlsProxy, type TlsProxy } from './helpers/tls-proxy';
import { waitFor, waitUntil } from './helpers/wait';

jest.setTimeout(120_000);

/** `node bin/switchboard.js <role>` with a minimal environment; resolves once `ready` shows in its output. */
async function startRole(role: 'worker' | 'server', cwd: string, env: Record<string, string>, ready: (output: string) => Promise<boolean>) {
  const child: ChildProcess = spawn(process.execPath, [join(projectRoot(), 'bin', 'switchboard.js'), role], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', SWITCHBOARD_LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  const early = exited.then(() => {
    throw new Error(`switchboard ${role} exited before it was ready:\n${output}`);
  });
  await Promise.race([early, waitFor(async () => ready(output), 60_000)]).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw new Error(`switchboard ${role} was not ready: ${String(error)}\n${output}`);
  });
  early.catch(() => undefined);
  return {
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The process roles against a Temporal reachable only over TLS: a proxy with a CA made here
 * terminates TLS in front of the test server. `switchboard worker` trusts the CA through
 * Temporal's TEMPORAL_TLS_* variables, `switchboard server` through a profile in a Temporal
 * client config file; a job sent to the server's HTTP API completes on the worker, and each
 * process's /metrics then serves the key series.
 */
describe('switchboard worker and switchboard server behind a TLS proxy, with metrics', () => {
  const taskQueue = uniqueTaskQueue('tls');
  let dir: string;
  let proxy: TlsProxy;
  let worker: Awaited<ReturnType<typeof startRole>> | undefined;
  let server: Awaited<ReturnType<typeof startRole>> | undefined;
  const token = newToken();
  const ports = { http: 0, workerMetrics: 0, serverMetrics: 0 };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-tls-'));
    const certificates = makeTestCertificates(dir);
    proxy = await startTlsProxy(certificates, testTemporalAddress());
    mkdirSync(join(dir, 'scripts'));
    cpSync(join(projectRoot(), 'examples', 'hello.yaml'), join(dir, 'scripts', 'hello.yaml'));
    writeFileSync(
      join(dir, 'switchboard.yaml'),
      stringify({
        models: { scriptedDirs: { kit: 'scripts' }, allowed: ['scripted:kit/*'] },
        api: { tokens: [{ id: 'ops', sha256: hashToken(token), user: 'ops' }] },
      }),
    );
    writeFileSync(
      join(dir, 'temporal.toml'),
      `[profile.behind-proxy]\naddress = "${proxy.address}"\nnamespace = "default"\n\n[profile.behind-proxy.tls]\nserver_ca_cert_path = "${certificates.caFile}"\n`,
    );
    [ports.http, ports.workerMetrics, ports.serverMetrics] = [await freePort(), await freePort(), await freePort()];
    const common = { LOG_LEVEL: 'info', SWITCHBOARD_TASK_QUEUE: taskQueue };
    worker = await startRole(
      'worker',
      dir,
      {
        ...common,
        TEMPORAL_ADDRESS: proxy.address,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caFile,
        SWITCHBOARD_DATA_DIR: join(dir, 'worker-data'),
        SWITCHBOARD_METRICS_PORT: String(ports.workerMetrics),
      },
      async (output) => output.includes('SWITCHBOARD_WORKER_READY'),
    );
    server = await startRole(
      'server',
      dir,
      {
        ...common,
        TEMPORAL_CONFIG_FILE: join(dir, 'temporal.toml'),
        TEMPORAL_PROFILE: 'behind-proxy',
        PORT: String(ports.http),
        SWITCHBOARD_DATA_DIR: join(dir, 'server-data'),
        SWITCHBOARD_METRICS_PORT: String(ports.serverMetrics),
      },
      async () => (await fetch(`http://127.0.0.1:${ports.http}/healthz`).catch(() => undefined))?.status === 200,
    );
  });

  afterAll(async () => {
    await server?.stop();
    await worker?.stop();
    await proxy?.stop();
  });

  it('runs a job end to end over TLS, and both processes serve their key metrics', async () => {
    const api = (path: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${ports.http}/api/v1${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const health = (await (await fetch(`http://127.0.0.1:${ports.http}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ ok: true, temporal: 'ok', worker: 'absent', taskQueue });
    // Both processes' connections went through the TLS handshake (the proxy speaks nothing else).
    expect(proxy.handshakes()).toBeGreaterThanOrEqual(2);
    expect(server!.output()).toMatch(/"tls":true[^\n]*Temporal connected|Temporal connected[^\n]*"tls":true/);

    // The worker also polls its host's own queue (kept in its data directory) for workspace activities.
    const hostTaskQueue = readFileSync(join(dir, 'worker-data', 'host-id'), 'utf8').trim();
    expect(worker!.output()).toContain(`"hostTaskQueue":"${taskQueue}@${hostTaskQueue}"`);
    const connection = await Connection.connect({ address: testTemporalAddress() });
    try {
      const described = await waitUntil(
        () =>
          connection.workflowService.describeTaskQueue({
            namespace: 'default',
            taskQueue: { name: `${taskQueue}@${hostTaskQueue}` },
            taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
          }),
        (answer) => (answer.pollers?.length ?? 0) > 0,
      );
      expect(described.pollers?.length).toBeGreaterThan(0);
    } finally {
      await connection.close();
    }

    const accepted = await api('/jobs', { text: 'say hello', model: 'scripted:kit/hello.yaml' });
    expect(accepted.status).toBe(202);
    const { jobId } = (await accepted.json()) as { jobId: string };
    const job = await waitUntil(
      async () => (await (await api(`/jobs/${encodeURIComponent(jobId)}`)).json()) as { state?: string; record?: { finalText?: string } },
      (value) => value.state !== undefined && value.state !== 'running',
    );
    expect(job.state).toBe('completed');
    expect(job.record?.finalText).toBe('Hello from Switchboard. You asked: say hello');

    const workerMetrics = await (await fetch(`http://127.0.0.1:${ports.workerMetrics}/metrics`)).text();
    // The Temporal runtime's series: finished workflows, activity latency, free slots, its client's requests.
    expect(workerMetrics).toMatch(new RegExp(`^temporal_workflow_completed_total\\{[^}]*task_queue="${taskQueue}"[^}]*\\} [1-9]`, 'm'));
    expect(workerMetrics).toMatch(/^temporal_activity_execution_latency_count\{[^}]*activity_type="modelTurn"[^}]*\} [1-9]/m);
    expect(workerMetrics).toMatch(/^temporal_worker_task_slots_available\{/m);
    expect(workerMetrics).toMatch(/^temporal_sticky_cache_size\{/m);
    expect(workerMetrics).toMatch(/^temporal_request_total\{/m);

    const serverMetrics = await (await fetch(`http://127.0.0.1:${ports.serverMetrics}/metrics`)).text();
    expect(serverMetrics).toMatch(/^switchboard_http_requests_total\{front_end="api",status="202"\} 1$/m);
    expect(serverMetrics).toMatch(/^switchboard_http_ack_seconds_count\{front_end="api"\} [1-9]/m);
    // The API sends its message by update-with-start (the thread's sendMessage update answers the decision).
    expect(serverMetrics).toMatch(
      /^switchboard_temporal_signal_seconds_count\{kind="update_with_start",name="sendMessage",outcome="ok"\} 1$/m,
    );
  });
});
