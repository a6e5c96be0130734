import type { RunProgress } from '../contracts/run-progress';
import { RUN_WATCH_EVERY_MS, RUN_WATCH_FIRST_MS, stuckRunNotice, watchForStuck, watchRun } from './run-watch';

/** Plays `looks` in order, then never answers again; resolves the watch's sleeps at once and records them. */
function scripted(looks: Array<RunProgress | Error>) {
  const sleeps: number[] = [];
  let index = 0;
  return {
    sleeps,
    deps: {
      sleep: async (ms: number) => void sleeps.push(ms),
      progress: async (): Promise<RunProgress> => {
        if (index >= looks.length) return new Promise<never>(() => undefined);
        const look = looks[index++];
        if (look instanceof Error) throw look;
        return look;
      },
    },
    looked: () => index,
  };
}

const stuck = (attempts: number): RunProgress => ({ open: true, workflowTaskAttempts: attempts });
const fine: RunProgress = { open: true, workflowTaskAttempts: 0 };

describe('watchForStuck', () => {
  it('lets a run go after two looks in a row find its workflow task failing', async () => {
    const watch = scripted([fine, stuck(4), stuck(9)]);
    await expect(watchForStuck('run:t:1', watch.deps)).resolves.toEqual({ runId: 'run:t:1', attempts: 9 });
    expect(watch.sleeps).toEqual([RUN_WATCH_FIRST_MS, RUN_WATCH_EVERY_MS, RUN_WATCH_EVERY_MS]);
  });

  it('starts counting again when the run recovers between looks, and a failed look counts for nothing', async () => {
    const watch = scripted([stuck(3), fine, stuck(3), new Error('Temporal busy'), stuck(5), stuck(6)]);
    await expect(watchForStuck('run:t:2', { ...watch.deps, firstMs: 10, everyMs: 20 })).resolves.toMatchObject({ attempts: 5 });
    expect(watch.looked()).toBe(5);
    expect(watch.sleeps[0]).toBe(10);
    expect(watch.sleeps.slice(1).every((ms) => ms === 20)).toBe(true);
  });

  it('never lets go of a closed run or one below the attempt threshold', async () => {
    const watch = scripted([{ open: false, workflowTaskAttempts: 7 }, stuck(2), stuck(2), stuck(2)]);
    const outcome = await Promise.race([
      watchForStuck('run:t:3', watch.deps).then(() => 'let go'),
      new Promise((resolve) => setImmediate(() => resolve('still watching'))),
    ]);
    expect(outcome).toBe('still watching');
    expect(watch.looked()).toBe(4);
  });

  it('with closedEnds, resolves on the first look that finds the run closed (a run that never said it ended)', async () => {
    const watch = scripted([fine, stuck(3), { open: false, workflowTaskAttempts: 0 }]);
    await expect(watchRun('run:t:5', watch.deps, { closedEnds: true })).resolves.toEqual({ closed: true });
    expect(watch.looked()).toBe(3);
  });

  it('with closedEnds, still lets a stuck run go', async () => {
    const watch = scripted([stuck(4), stuck(4)]);
    await expect(watchRun('run:t:6', watch.deps, { closedEnds: true })).resolves.toEqual({ stuck: { runId: 'run:t:6', attempts: 4 } });
  });

  it('tells the person what happened and where an operator looks', () => {
    const text = stuckRunNotice({ runId: 'run:t:4', attempts: 12 });
    expect(text).toContain('run:t:4');
    expect(text).toContain('12 times');
    expect(text).toContain('switchboard runs list --stuck');
  });
});
