import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { stringify } from 'yaml';
import { hashToken, newToken } from '../infra/api-tokens';
import { loadConfig } from '../infra/config';
import { createLogger } from '../infra/logger';
import { dataConverterFromConfig, payloadCodecFromConfig } from '../infra/payloads';
import { CLAIM_CHECK_ENCODING } from '../infra/payloads/claim-check-codec';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { createServerApp } from '../server/app';
import { codecMountFromConfig } from '../server/codec/from-config';
import { payloadToJson } from '../server/codec/payload-json';
import { resendWorkflowType } from '../workflows/contracts';
import { freePort } from './helpers/ports';
import { testTemporalAddress } from './helpers/temporal';

const run = promisify(execFile);
const WEB_UI = 'http://127.0.0.1:8233';

/**
 * The codec endpoint as the Web UI and the `temporal` CLI use it: the real Express app from a
 * real switchboard.yaml, the claim-check folder on disk, and a workflow on the suite's Temporal
 * whose input was claim-checked by a client with the deployment's codec.
 */
describe('codec endpoint', () => {
  let dir: string;
  let server: Server;
  let endpoint: string;
  let connection: Connection;
  let client: Client;
  const logLines: string[] = [];
  const operator = newToken();
  const selfServe = newToken();
  const bigText = `big input ${'x'.repeat(40_000)} end`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'codec-endpoint-'));
    writeFileSync(
      join(dir, 'switchboard.yaml'),
      stringify({
        dataDir: join(dir, 'data'),
        codec: { enabled: true, corsOrigins: ['https://temporal.example.com'] },
        api: {
          tokens: [
            { id: 'operator', sha256: hashToken(operator), user: 'U1' },
            { id: 'self', sha256: hashToken(selfServe), user: 'U2', selfServe: true },
          ],
        },
      }),
    );
    const loaded = loadConfig({ env: {}, cwd: dir });
    const destination = new PassThrough();
    destination.on('data', (chunk: Buffer) => logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const logger = createLogger({ level: 'info', format: 'json', destination });
    const mount = codecMountFromConfig(loaded, logger, WEB_UI);
    connection = await Connection.connect({ address: testTemporalAddress() });
    client = new Client({ connection, namespace: 'default', dataConverter: dataConverterFromConfig(loaded.config) });
    const app = createServerApp({
      client,
      logger,
      health: { namespace: 'default', taskQueue: 'codec', pingTemporal: async () => undefined, workerState: () => 'RUNNING' },
      mounts: [mount!],
    });
    const port = await freePort();
    server = await new Promise((resolve) => {
      const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
    });
    endpoint = `http://127.0.0.1:${port}/codec`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await connection?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const codec = () => payloadCodecFromConfig(loadConfig({ env: {}, cwd: dir }).config);
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${endpoint}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('decodes a claim-checked payload, passes others through, and keeps a reference it cannot read', async () => {
    const [reference] = await codec().encode([defaultPayloadConverter.toPayload(bigText)]);
    const small = payloadToJson(defaultPayloadConverter.toPayload({ hello: 'there' }));
    const missing = payloadToJson({
      metadata: { encoding: new TextEncoder().encode(CLAIM_CHECK_ENCODING) },
      data: new TextEncoder().encode(JSON.stringify({ claimCheck: `sha256:${'0'.repeat(64)}`, bytes: 10 })),
    });
    const response = await post('/decode', { payloads: [payloadToJson(reference), small, missing] }, bearer(operator));
    expect(response.status).toBe(200);
    const { payloads } = (await response.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    expect(JSON.parse(Buffer.from(payloads[0].data, 'base64').toString('utf8'))).toBe(bigText);
    expect(Buffer.from(payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
    expect(payloads[1]).toEqual(small);
    expect(payloads[2]).toEqual(missing);
    expect(logLines.some((line) => line.includes(`sha256:${'0'.repeat(64)}`) && line.includes('returned as the reference'))).toBe(true);
  });

  it('encodes as the workers do: a large payload becomes the same reference', async () => {
    const large = defaultPayloadConverter.toPayload({ text: 'y'.repeat(20_000) });
    const [expected] = await codec().encode([large]);
    const response = await post('/encode', { payloads: [payloadToJson(large)] }, bearer(operator));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { payloads: unknown[] }).payloads).toEqual([payloadToJson(expected)]);
  });

  it('refuses callers without an operator token, and malformed bodies with 400 problem+json', async () => {
    const body = { payloads: [] };
    expect((await post('/decode', body)).status).toBe(401);
    expect((await post('/decode', body, bearer('sbt_not-a-token'))).status).toBe(401);
    expect((await post('/decode', body, bearer(selfServe))).status).toBe(403);
    // The local Web UI (no login) may decode from loopback, never encode.
    expect((await post('/decode', body, { origin: WEB_UI })).status).toBe(200);
    expect((await post('/encode', body, { origin: WEB_UI })).status).toBe(401);
    // Not through a proxy on this host: that would make every caller look local.
    expect((await post('/decode', body, { origin: WEB_UI, 'x-forwarded-for': '203.0.113.9' })).status).toBe(401);
    expect((await post('/decode', body, { origin: 'https://temporal.example.com' })).status).toBe(401);
    for (const bad of ['{not json', { payloads: 'x' }, { payloads: [{ data: '***' }] }, { payloads: [], extra: 1 }]) {
      const response = await post('/decode', bad, bearer(operator));
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(((await response.json()) as { code: string }).code).toBe('bad_request');
    }
  });

  it("answers the Web UI's CORS preflight for allowed origins only", async () => {
    const preflight = (origin: string) =>
      fetch(`${endpoint}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace,authorization',
        },
      });
    for (const origin of [WEB_UI, 'https://temporal.example.com']) {
      const allowed = await preflight(origin);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
      expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
      expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    }
    const other = await preflight('https://evil.example.com');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets `temporal workflow start --codec-endpoint` claim-check a large --input, as a worker would', async () => {
    const workflowId = `codec-start-${randomUUID()}`;
    const input = { workflowId: 'unit:none', effectKey: bigText, by: 'codec-cli' };
    const cli = resolveTemporalBinary('cli').path;
    await run(cli, [
      'workflow',
      'start',
      '--address',
      testTemporalAddress(),
      '--type',
      resendWorkflowType.name,
      '--task-queue',
      `codec-${randomUUID()}`,
      '--workflow-id',
      workflowId,
      '--input',
      JSON.stringify(input),
      '--codec-endpoint',
      endpoint,
      '--codec-auth',
      `Bearer ${operator}`,
    ]);
    const handle = client.workflow.getHandle(workflowId);
    try {
      // History holds the reference (fetchHistory does not decode); the deployment's codec reads it back whole.
      const history = await handle.fetchHistory();
      const stored = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
      expect(new TextDecoder().decode(stored.metadata!.encoding)).toBe(CLAIM_CHECK_ENCODING);
      const [decoded] = await codec().decode([stored]);
      expect(defaultPayloadConverter.fromPayload(decoded)).toEqual(input);
    } finally {
      await handle.terminate('test done');
    }
  });

  it('lets `temporal workflow show --codec-endpoint --codec-auth` show the decoded input', async () => {
    const workflowId = `codec-show-${randomUUID()}`;
    // No worker polls this queue: the started event is all the history, its input claim-checked.
    const handle = await client.workflow.start(resendWorkflowType, {
      taskQueue: `codec-${randomUUID()}`,
      workflowId,
      args: [{ workflowId: 'unit:none', effectKey: bigText, by: 'codec-test' }],
    });
    try {
      const cli = resolveTemporalBinary('cli').path;
      const show = async (...extra: string[]) =>
        (
          await run(cli, ['workflow', 'show', '--address', testTemporalAddress(), '--workflow-id', workflowId, '-o', 'json', ...extra], {
            maxBuffer: 16 * 1024 * 1024,
          })
        ).stdout;
      // The started event's input as the CLI prints it: encoding and data, both base64.
      const input = async (...extra: string[]) => {
        const history = JSON.parse(await show(...extra)) as {
          events: Array<{
            workflowExecutionStartedEventAttributes?: { input: { payloads: Array<{ metadata: { encoding: string }; data: string }> } };
          }>;
        };
        const [payload] = history.events[0].workflowExecutionStartedEventAttributes!.input.payloads;
        return {
          encoding: Buffer.from(payload.metadata.encoding, 'base64').toString(),
          data: Buffer.from(payload.data, 'base64').toString(),
        };
      };
      const raw = await input();
      expect(raw.encoding).toBe(CLAIM_CHECK_ENCODING);
      expect(raw.data).toMatch(/^\{"claimCheck":"sha256:[0-9a-f]{64}","bytes":\d+\}$/);
      const decoded = await input('--codec-endpoint', endpoint, '--codec-auth', `Bearer ${operator}`);
      expect(decoded.encoding).toBe('json/plain');
      expect(decoded.data.includes(JSON.stringify(bigText))).toBe(true);
    } finally {
      await handle.terminate('test done');
    }
  });
});
