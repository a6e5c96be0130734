import { exploreRunInput } from '../test-support';
import { RunControl } from './run-control';
import { RunHandlers } from './run-handlers';
import { RunState } from './run-state';

function setup() {
  const state = new RunState(exploreRunInput(), 1_000);
  const control = new RunControl(state, () => 61_000);
  const touched: number[] = [];
  let cancelled = 0;
  const handlers = new RunHandlers({
    runId: 'run:t:1',
    state,
    control,
    card: { touch: () => touched.push(state.pendingSteers.length) },
    inFlight: { cancel: () => (cancelled += 1) },
    now: () => 61_000,
  });
  return { state, control, touched, handlers, cancelled: () => cancelled };
}

describe('RunHandlers', () => {
  it('answers the status query with the state at the workflow clock', () => {
    const { handlers, state } = setup();
    expect(handlers.status()).toEqual(state.status('run:t:1', 61_000));
    expect(handlers.status()).toMatchObject({ elapsedMs: 60_000 });
  });

  it('takes a steer for the next turn, trimmed and with who sent it, and touches the card', () => {
    const { handlers, state, touched } = setup();
    handlers.steerSignal({ text: '  use v2 \n', by: 'ada' });
    expect(handlers.steerUpdate({ text: 'and be quick' })).toEqual({ accepted: true, pending: 2 });
    expect(state.pendingSteers).toEqual([{ text: 'use v2', by: 'ada' }, { text: 'and be quick' }]);
    expect(touched).toEqual([1, 2]);
  });

  it('drops a steer signal once the run has finished, and its validator refuses the update', () => {
    const { handlers, state, touched } = setup();
    expect(() => handlers.refuseSteerWhenFinished()).not.toThrow();
    state.finish('completed');
    handlers.steerSignal({ text: 'too late' });
    expect(state.pendingSteers).toEqual([]);
    expect(touched).toEqual([]);
    expect(() => handlers.refuseSteerWhenFinished()).toThrow(
      expect.objectContaining({ type: 'steer_rejected', message: 'the run has finished (completed)' }),
    );
  });

  it('takes the first stop (an empty one as well) and cancels the work in flight once', () => {
    const { handlers, control, cancelled } = setup();
    handlers.stop(undefined);
    expect(control.stopRequest).toEqual({});
    handlers.stop({ by: 'bob', reason: 'later' });
    expect(control.stopRequest).toEqual({});
    expect(cancelled()).toBe(1);
  });

  it('ignores a stop after the run finished', () => {
    const { handlers, control, state, cancelled } = setup();
    state.finish('completed');
    handlers.stop({ by: 'ada' });
    expect(control.stopRequest).toBeUndefined();
    expect(cancelled()).toBe(0);
  });
});
