import { stopSignal, type RunRecord } from '../contracts';
import { startOrFollow, UNIT_FOLLOWS_RUNNING_CHILD, type RunningRun } from './running-child';
import type { UnitChildRun } from './unit';

const record = { outcome: 'completed', submissions: {}, startedAt: 0, endedAt: 1 } as unknown as RunRecord;

/** What the SDK's startChild rejects with when a workflow of the id is running (told by name). */
function alreadyStarted(): Error {
  const error = new Error('Workflow execution already started');
  error.name = 'WorkflowExecutionAlreadyStartedError';
  return error;
}

function running(answer: { record?: RunRecord; ended?: string }) {
  const calls: string[] = [];
  const ports: RunningRun = {
    awaitRun: async (runId) => {
      calls.push(`await ${runId}`);
      return answer;
    },
    signal: async (runId, definition, stop) => {
      calls.push(`${definition.name} ${runId} ${stop.reason}`);
    },
  };
  return { ports, calls };
}

describe('startOrFollow', () => {
  it('follows a run of the same id that is still running: its record is the round’s, and a stop reaches it', async () => {
    const { ports, calls } = running({ record });
    const patches: string[] = [];
    const child = await startOrFollow(
      'unit:a/b:x/coding-1-1',
      () => Promise.reject(alreadyStarted()),
      ports,
      (id) => (patches.push(id), true),
    );
    expect(await child.result()).toBe(record);
    await child.signal(stopSignal, { reason: 'enough' });
    expect(calls).toEqual(['await unit:a/b:x/coding-1-1', 'stop unit:a/b:x/coding-1-1 enough']);
    expect(patches).toEqual([UNIT_FOLLOWS_RUNNING_CHILD]);
  });

  it('says why a followed run left no record (failed, terminated, gone)', async () => {
    const { ports } = running({ ended: 'it was terminated' });
    const child = await startOrFollow(
      'r',
      () => Promise.reject(alreadyStarted()),
      ports,
      () => true,
    );
    await expect(child.result()).rejects.toThrow('r ended without a record: it was terminated');
  });

  it('starts as before when the start succeeds, and rethrows other failures and histories from before the patch', async () => {
    const { ports, calls } = running({ record });
    const started = { result: async () => record, signal: async () => undefined } as UnitChildRun;
    expect(
      await startOrFollow(
        'r',
        async () => started,
        ports,
        () => true,
      ),
    ).toBe(started);
    await expect(
      startOrFollow(
        'r',
        () => Promise.reject(new Error('boom')),
        ports,
        () => true,
      ),
    ).rejects.toThrow('boom');
    await expect(
      startOrFollow(
        'r',
        () => Promise.reject(alreadyStarted()),
        ports,
        () => false,
      ),
    ).rejects.toThrow('already started');
    expect(calls).toEqual([]);
  });
});
