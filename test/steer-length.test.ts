import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataConverterFromConfig } from '../infra/payloads';
import { sendToThread } from '../infra/thread-client';
import { MAX_STEER_CHARS, runStatusQuery, stopSignal, type RunRecord } from '../workflows/contracts';
import { runCli } from './helpers/cli';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(120_000);

/**
 * Issue 32: a steer has a length bound (MAX_STEER_CHARS, the HTTP API's bound on a message),
 * refused in words wherever a person sends one: the CLI's `steer` (the run's update validator), a
 * reply in the run's conversation (the thread, which would otherwise forward it to be dropped).
 * A steer within the bound still reaches the run.
 */
describe('the steer length bound', () => {
  let kit: RunKit;
  // A long steer is claim-checked on its way (over 8 KiB): the CLI and the worker share the store, as a deployment's do.
  const payloads = mkdtempSync(join(tmpdir(), 'steer-length-payloads-'));
  const settings = { dataDir: payloads, payloads: { claimCheckBytes: 8 * 1024, dir: payloads } };
  const cli = (args: string[]) => runCli(kit, args, { SWITCHBOARD_PAYLOADS_DIR: payloads });
  beforeAll(async () => {
    kit = await startRunKit('steer-length', {
      dataConverter: dataConverterFromConfig(settings),
      workerDataConverter: dataConverterFromConfig(settings, { worker: true }),
    });
  });
  afterAll(async () => {
    await kit?.close();
    rmSync(payloads, { recursive: true, force: true });
  });

  it('refuses a steer past the bound from the CLI and from the conversation, and takes one within it', async () => {
    const slow = kit.script('slow', [{ text: 'Thinking for a long time.', delayMs: 600_000 }]);
    const { threadId, runId } = await kit.start(`agent:general model:${slow} think`);
    await waitUntil(
      () => kit.client.workflow.getHandle(runId).query(runStatusQuery),
      (status) => status.phase === 'thinking',
    );
    const long = 'word '.repeat(Math.ceil((MAX_STEER_CHARS + 1_000) / 5));

    const refused = await cli(['steer', runId, long]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`is ${long.length} characters long, and at most ${MAX_STEER_CHARS} are taken`);
    expect(refused.stderr).not.toMatch(/\n\s+at /);

    const reply = await sendToThread(
      kit.client,
      kit.taskQueue,
      {
        threadId,
        input: { threadId, replyTarget: { kind: 'cli' } },
        message: { messageId: `long:${randomUUID()}`, text: long, requester: { id: 'tester', surface: 'cli' }, addressedToRun: true },
        summary: 'steer length',
      },
      { existing: true },
    );
    expect(reply).toMatchObject({ kind: 'refused', code: 'steer_too_long' });
    expect(reply?.reply).toContain(`at most ${MAX_STEER_CHARS}`);

    // Within the bound, the same way in: the run takes it.
    const short = await cli(['steer', runId, 'use the v2 API']);
    expect(short.code).toBe(0);
    await kit.client.workflow.getHandle(runId).signal(stopSignal, { reason: 'test over', by: 'tester' });
    const record: RunRecord = await kit.result(runId);
    expect(record.outcome).toBe('stopped');
  });
});
