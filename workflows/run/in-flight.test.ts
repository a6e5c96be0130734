import { exploreRunInput } from '../test-support';
import { CancelledFailure } from '@temporalio/common';
import { DEADLINE_SPARES_AFTER_DEADLINE_WORK, InFlight, type CancellableScope } from './in-flight';
import { RunControl } from './run-control';
import { RunState } from './run-state';

/** A scope as Temporal's behaves for the run: cancelling it fails the work in it with a cancellation. */
class FakeScope implements CancellableScope {
  cancelled = false;
  private fail?: (error: unknown) => void;

  run<T>(work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.fail = reject;
      work().then(resolve, reject);
    });
  }

  cancel(): void {
    this.cancelled = true;
    this.fail?.(new CancelledFailure('cancelled'));
  }
}

/** Work that stays in flight until the test lets it end. */
function pending<T>(): { work: () => Promise<T>; started: () => boolean; end: (value: T) => void } {
  let end: (value: T) => void = () => undefined;
  let started = false;
  return {
    work: () => {
      started = true;
      return new Promise<T>((resolve) => (end = resolve));
    },
    started: () => started,
    end: (value) => end(value),
  };
}

function setup(options: { patched?: boolean } = {}) {
  let now = 0;
  const state = new RunState(exploreRunInput(), now);
  const control = new RunControl(state, () => now);
  const scopes: FakeScope[] = [];
  const asked: string[] = [];
  const inFlight = new InFlight({
    state,
    control,
    newScope: () => {
      const scope = new FakeScope();
      scopes.push(scope);
      return scope;
    },
    patched: (id) => {
      asked.push(id);
      return options.patched ?? true;
    },
  });
  return { state, control, scopes, asked, inFlight, pastDeadline: () => (now = state.deadline) };
}

describe('InFlight', () => {
  it('runs the work in a scope of its own and answers its result', async () => {
    const { inFlight, scopes } = setup();
    await expect(inFlight.cancellable(async () => 'done')).resolves.toBe('done');
    expect(scopes).toHaveLength(1);
    // Nothing is in flight once it ended: a later cancel reaches no scope.
    inFlight.cancel();
    expect(scopes[0].cancelled).toBe(false);
  });

  it('answers undefined when the work is cancelled, and rethrows any other failure', async () => {
    const { inFlight, scopes } = setup();
    const work = pending<string>();
    const result = inFlight.cancellable(work.work);
    expect(work.started()).toBe(true);
    inFlight.cancel();
    await expect(result).resolves.toBeUndefined();
    expect(scopes[0].cancelled).toBe(true);
    await expect(inFlight.cancellable(() => Promise.reject(new Error('model down')))).rejects.toThrow('model down');
  });

  it('starts nothing once a stop came, or past the deadline unless the work is meant to run past it', async () => {
    const stopped = setup();
    stopped.control.stopRequest = { by: 'ada' };
    const never = jest.fn(async () => 'ran');
    await expect(stopped.inFlight.cancellable(never, { afterDeadline: true })).resolves.toBeUndefined();
    expect(never).not.toHaveBeenCalled();

    const late = setup();
    late.pastDeadline();
    await expect(late.inFlight.cancellable(never)).resolves.toBeUndefined();
    expect(never).not.toHaveBeenCalled();
    await expect(late.inFlight.cancellable(async () => 'summary', { afterDeadline: true })).resolves.toBe('summary');
  });

  it('at the deadline: marks the budget over and cancels the work in flight, without asking the marker', async () => {
    const { inFlight, control, scopes, asked } = setup();
    const work = pending<string>();
    const result = inFlight.cancellable(work.work);
    inFlight.deadlinePassed();
    expect(control.budgetOver).toBe(true);
    await expect(result).resolves.toBeUndefined();
    expect(scopes[0].cancelled).toBe(true);
    expect(asked).toEqual([]);
  });

  it('at the deadline: spares work meant to run past it, as runs recorded with the marker do', async () => {
    const { inFlight, scopes, asked } = setup({ patched: true });
    const summary = pending<string>();
    const result = inFlight.cancellable(summary.work, { afterDeadline: true });
    inFlight.deadlinePassed();
    expect(asked).toEqual([DEADLINE_SPARES_AFTER_DEADLINE_WORK]);
    expect(scopes[0].cancelled).toBe(false);
    summary.end('the summary');
    await expect(result).resolves.toBe('the summary');
  });

  it('at the deadline: cancels even that work in runs recorded before the marker', async () => {
    const { inFlight, scopes } = setup({ patched: false });
    const summary = pending<string>();
    const result = inFlight.cancellable(summary.work, { afterDeadline: true });
    inFlight.deadlinePassed();
    expect(scopes[0].cancelled).toBe(true);
    await expect(result).resolves.toBeUndefined();
  });
});
