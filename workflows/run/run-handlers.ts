import { failure, type RunStatus, type SteerAccepted, type SteerInput, type StopInput } from '../contracts';
import type { InFlight } from './in-flight';
import type { RunControl } from './run-control';
import type { RunState } from './run-state';
import type { StatusCard } from './status-card';

export interface RunHandlersDeps {
  runId: string;
  state: RunState;
  control: RunControl;
  card: Pick<StatusCard, 'touch'>;
  inFlight: Pick<InFlight, 'cancel'>;
  now(): number;
}

/**
 * What a run does with each message it takes: the status query, a steer (signal or update)
 * and a stop. The workflow registers the handlers (behind its input guard); the decisions are
 * here, so a test drives them without a server.
 */
export class RunHandlers {
  constructor(private readonly deps: RunHandlersDeps) {}

  /** The `runStatus` query. */
  status(): RunStatus {
    return this.deps.state.status(this.deps.runId, this.deps.now());
  }

  /** A steer sent as a signal: taken for the next turn, dropped once the run has finished. */
  steerSignal(steer: SteerInput): void {
    if (!this.deps.state.finished) this.acceptSteer(steer);
  }

  /** A steer sent as an update (its validator has refused it on a finished run). */
  steerUpdate(steer: SteerInput): SteerAccepted {
    this.acceptSteer(steer);
    return { accepted: true as const, pending: this.deps.state.pendingSteers.length };
  }

  /** The steer update's validator, after the shape: a finished run takes no steer. */
  refuseSteerWhenFinished(): void {
    const { state } = this.deps;
    if (state.finished) throw failure('steer_rejected', `the run has finished (${state.outcome})`);
  }

  /** A stop (a signal, or a cancellation request): the first one counts; the work in flight is cancelled. */
  stop(stop: StopInput | undefined): void {
    const { state, control } = this.deps;
    if (state.finished || control.stopRequest) return;
    control.stopRequest = stop ?? {};
    this.deps.inFlight.cancel();
  }

  private acceptSteer(steer: SteerInput): void {
    this.deps.state.pendingSteers.push({ text: steer.text.trim(), ...(steer.by ? { by: steer.by } : {}) });
    this.deps.card.touch();
  }
}
