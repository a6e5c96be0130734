import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { type Payload } from '@temporalio/common';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { followRun, sendMessage } from '../cli/commands/ask';
import { loadConfig } from '../infra/config';
import { CLAIM_CHECK_ENCODING, dataConverterFromConfig } from '../infra/payloads';
import { parseReference } from '../infra/payloads/claim-check-codec';
import { startMoto, type MotoServer } from './helpers/moto';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { testScripts } from './helpers/scripts';
import { killProcessesMentioning } from './helpers/processes';
import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';

jest.setTimeout(180_000);

const CLAIM_CHECK_BYTES = 8 * 1024;
const BUCKET = 'switchboard-payloads';

/** Every payload anywhere in a history's events, as stored by the server (encoded). */
function payloadsOf(history: { events?: unknown[] | null }): Payload[] {
  const found: Payload[] = [];
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    const record = value as Record<string, unknown>;
    if (record.data instanceof Uint8Array && 'metadata' in record) found.push(record);
    for (const child of Object.values(record)) visit(child);
  };
  for (const event of history.events ?? []) visit(event);
  return found;
}

const encodingOf = (payload: Payload) => new TextDecoder().decode(payload.metadata?.encoding ?? new Uint8Array());
const referencesIn = (history: { events?: unknown[] | null }) =>
  payloadsOf(history)
    .filter((payload) => encodingOf(payload) === CLAIM_CHECK_ENCODING)
    .map((payload) => parseReference(payload).claimCheck);
const objectKey = (prefix: string, key: string) => `${prefix}${key.slice(7, 9)}/${key.slice(7)}`;

/**
 * The claim-check codec over an S3-compatible bucket (moto's S3 server, on the wire): large
 * payloads leave history for the bucket, and workers on different hosts with no shared folder
 * read each other's payloads.
 */
describe('claim-check payloads in an S3-compatible bucket', () => {
  let moto: MotoServer;
  let dir: string;
  let env: TestWorkflowEnvironment;
  const s3Variables = () => ({
    ...moto.awsEnv,
    SWITCHBOARD_PAYLOADS_STORE: 's3',
    SWITCHBOARD_PAYLOADS_S3_BUCKET: BUCKET,
    SWITCHBOARD_PAYLOADS_S3_ENDPOINT: moto.endpoint,
    SWITCHBOARD_PAYLOADS_S3_FORCE_PATH_STYLE: 'true',
  });

  beforeAll(async () => {
    moto = await startMoto();
    await moto.createBucket(BUCKET);
    // The in-process codecs find their credentials the way a deployment does: the AWS environment.
    Object.assign(process.env, moto.awsEnv);
    dir = mkdtempSync(join(tmpdir(), 'switchboard-s3-'));
    env = await sharedEnvironment();
  });
  afterAll(async () => {
    killProcessesMentioning(dir);
    rmSync(dir, { recursive: true, force: true });
    await env?.teardown();
    await moto?.stop();
  });

  describe('a worker and clients with payloads.store: s3', () => {
    let kit: RunKit;
    const prefix = 'kit/';
    const config = () =>
      loadConfig({ env: { ...s3Variables(), SWITCHBOARD_PAYLOADS_S3_PREFIX: prefix, SWITCHBOARD_DATA_DIR: join(dir, 'kit') }, cwd: dir })
        .config;
    beforeAll(async () => {
      kit = await startRunKit('s3-payloads', { env, dataConverter: dataConverterFromConfig(config()) });
    });
    afterAll(async () => kit?.close());

    it('claim-checks a large tool output into the bucket, history holds only references, and a second client decodes the record', async () => {
      const output = `awk 'BEGIN{for(i=1;i<=1000;i++) printf "line %04d abcdefghijklmnopqrstu\\n", i}'`;
      const model = kit.script('big-output', [
        { text: 'Reading.', toolCalls: [{ name: 'bash', input: { command: output } }] },
        { text: 'Read: {{lastToolResult:bash}}' },
      ]);
      const before = moto.requestCounts();
      const { runId } = await kit.start('print a long file', { agent: 'explore', model });
      const record = await kit.result(runId);
      const after = moto.requestCounts();
      // For the record (the store's request cost per run); the assertions below are the behaviour.
      console.log(
        `S3 requests for a 2-turn run: ${['HEAD', 'PUT', 'GET'].map((m) => `${m} ${(after[m] ?? 0) - (before[m] ?? 0)}`).join(', ')}`,
      );
      expect(record).toMatchObject({ outcome: 'completed', turns: 2 });
      expect(record.finalText.length).toBeGreaterThan(30_000);
      expect(record.finalText).toContain('line 1000 abcdefghijklmnopqrstu');

      const history = await kit.client.workflow.getHandle(runId).fetchHistory();
      const payloads = payloadsOf(history);
      const references = referencesIn(history);
      // The tool output, the model turns that carry it and the record all went to the bucket.
      expect(references.length).toBeGreaterThanOrEqual(2);
      expect(Math.max(...payloads.map((payload) => payload.data!.length))).toBeLessThanOrEqual(CLAIM_CHECK_BYTES);
      const stored = await moto.listKeys(BUCKET, prefix);
      for (const key of references) expect(stored).toContain(objectKey(prefix, key));

      // Another process's client: its own codec and S3 connection, nothing shared but the bucket.
      const second = new Client({ connection: env.connection, namespace: 'default', dataConverter: dataConverterFromConfig(config()) });
      const again = await followRun(second, runId, () => undefined);
      expect(again.finalText).toBe(record.finalText);
    });
  });

  describe('two workers with their own data directories and no shared folder', () => {
    const workers: WorkerProcess[] = [];
    afterAll(async () => {
      await Promise.all(workers.map((worker) => worker.stop()));
    });

    it('each replays the thread from payloads the other wrote to the bucket', async () => {
      const taskQueue = uniqueTaskQueue('s3-hosts');
      const hosts = join(dir, 'hosts');
      const prefix = 'hosts/';
      // The workers' config file chooses the S3 store, as an operator's would; AWS credentials stay in the environment.
      const scripts = testScripts(hosts, {
        payloads: { store: 's3', s3: { bucket: BUCKET, prefix, endpoint: moto.endpoint, forcePathStyle: true } },
      });
      const start = async (name: string) => {
        const worker = await startWorkerProcess({ taskQueue, dataDir: join(hosts, name), cwd: hosts, env: moto.awsEnv });
        workers.push(worker);
        return worker;
      };
      const client = new Client({
        connection: env.connection,
        namespace: 'default',
        dataConverter: dataConverterFromConfig(loadConfig({ env: { SWITCHBOARD_CONFIG: scripts.configFile }, cwd: hosts }).config),
      });
      const ask = async (text: string, model: string, thread?: string) => {
        const sent = await sendMessage(client, taskQueue, text, { agent: 'explore', model, requester: 'tester', thread });
        if (sent.outcome.kind !== 'run' || !sent.outcome.runId) throw new Error(`no run: ${JSON.stringify(sent.outcome)}`);
        return { threadId: sent.threadId, record: await followRun(client, sent.outcome.runId, () => undefined) };
      };
      // A scripted model counts the thread's earlier answers as its turns: the k-th message's answer is turn k.
      const answer = (name: string, k: number, text: string) =>
        scripts.write(name, [...Array.from({ length: k - 1 }, () => ({ text: 'earlier' })), { text }]);
      const long = (name: string, k: number, letter: string) => answer(name, k, `${letter}:${letter.repeat(30_000)}`);
      const threadHistory = (threadId: string) => client.workflow.getHandle(threadId).fetchHistory();

      // A alone: its answer, claim-checked by A, is in the thread's history as a reference.
      const a = await start('a');
      const first = await ask('first', long('from-a', 1, 'a'));
      expect(first.record.finalText).toBe(`a:${'a'.repeat(30_000)}`);
      const fromA = referencesIn(await threadHistory(first.threadId));
      expect(fromA.length).toBeGreaterThan(0);
      await a.stop();

      // B alone, a fresh process: it must replay the thread from A's payloads to take the follow-up.
      const b = await start('b');
      const second = await ask('second', long('from-b', 2, 'b'), first.threadId);
      expect(second.record.finalText).toBe(`b:${'b'.repeat(30_000)}`);
      const fromB = referencesIn(await threadHistory(first.threadId)).filter((key) => !fromA.includes(key));
      expect(fromB.length).toBeGreaterThan(0);
      await b.stop();

      // A again, a fresh process: it replays the thread from B's payloads (and its own).
      await start('a');
      const third = await ask('third', answer('short', 3, 'read both'), first.threadId);
      expect(third.record).toMatchObject({ outcome: 'completed', finalText: 'read both' });

      const stored = await moto.listKeys(BUCKET, prefix);
      for (const key of [...fromA, ...fromB]) expect(stored).toContain(objectKey(prefix, key));
      // Nothing went to a folder: neither data directory has one.
      for (const name of ['a', 'b']) expect(existsSync(join(hosts, name, 'payloads'))).toBe(false);
    });
  });
});
