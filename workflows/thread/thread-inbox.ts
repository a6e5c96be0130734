import { admitControl, type AdmissionRefusal } from '../../agents';
import { CANCEL_STOP } from '../cancel-as-stop';
import type { MessageOutcome, ReplyTarget, StopInput, ThreadMessage } from '../contracts';
import { personOf } from './decide';
import { steerTooLong } from './steer-length';
import type { ThreadEffects } from './thread-effects';
import type { ThreadMemory } from './thread-memory';

/** Marks histories whose threads admit a reply before it steers the current run (agents/admission.ts `admitControl`). */
export const STEER_ADMITTED = 'thread-steer-admitted';

/**
 * What the thread's message handlers do, before the loop sees anything: a message (by signal or
 * by the `sendMessage` update) is taken once — queued, held as an automatic review, or sent to
 * the running run as a steer when it replies to it and the admission lets its writer steer — and
 * a stop (or a cancellation) goes to the running run.
 */
export class ThreadInbox {
  /** Refusals answered from the message handlers (a steer that was not admitted), awaited before the thread closes. */
  readonly replies: Array<Promise<unknown>> = [];

  constructor(
    private readonly memory: ThreadMemory,
    private readonly effects: Pick<ThreadEffects, 'patched' | 'now' | 'condition' | 'status' | 'steer' | 'stop'>,
    /** Where the thread answers a message that names no target of its own. */
    private readonly replyTarget: ReplyTarget,
  ) {}

  /** Takes one well-formed message (from the signal or the update); false for a repeat. */
  accept(message: ThreadMessage): boolean {
    const { memory, effects } = this;
    if (!memory.see(message.messageId)) return false;
    // An automatic review waits for its debounce and for the conversation's messages (a newer push's replaces it).
    if (message.review) {
      memory.reviews.hold(message, effects.now());
      return true;
    }
    const runId = memory.currentRunId;
    if (runId && message.addressedToRun) {
      const refused = this.steerRefusal(message, runId) ?? steerTooLong(message, effects.patched);
      // Threads recorded before steers were admitted sent every reply to the run (docs/versioning.md).
      if (refused && effects.patched(STEER_ADMITTED)) {
        memory.remember({ messageId: message.messageId, kind: 'refused', reply: refused.message, code: refused.code });
        this.replies.push(
          effects.status
            .deliverReply({
              effectKey: `${memory.threadId}/reply/${message.messageId}`,
              replyTarget: message.replyTarget ?? this.replyTarget,
              text: refused.message,
            })
            .catch(() => undefined),
        );
        return true;
      }
      memory.remember({ messageId: message.messageId, kind: 'steered', runId });
      effects.steer(runId, { text: message.text, by: message.requester.id }).catch(() => memory.queue.push(message)); // the run ended meanwhile: treat it as a new request
      return true;
    }
    memory.queue.push(message);
    return true;
  }

  /** The `sendMessage` update: the message's outcome once the thread decided it (`queued` when it closes first). */
  async answer(message: ThreadMessage): Promise<MessageOutcome> {
    const { memory } = this;
    const { messageId } = message;
    const fresh = this.accept(message);
    // A repeat whose decision has been forgotten and that is not waiting either: nothing more to say.
    if (!fresh && !memory.outcomeOf(messageId) && !memory.pending(messageId)) return { messageId, kind: 'duplicate' };
    await this.effects.condition(() => memory.outcomeOf(messageId) !== undefined || memory.closing);
    return memory.outcomeOf(messageId) ?? { messageId, kind: 'queued' };
  }

  /** Stops the thread's running run (the Slack stop reaction and button land here). */
  stop(stop: StopInput | undefined): void {
    const runId = this.memory.currentRunId;
    if (!runId) return;
    // Kept too, in case the run is still starting and the signal cannot reach it yet.
    const pending = stop ?? {};
    this.memory.pendingStop = pending;
    this.effects.stop(runId, pending).catch(() => undefined);
  }

  /** A cancelled thread stops its run (which settles and is answered as usual), then ends. */
  cancel(): void {
    this.memory.cancelled = true;
    this.stop(CANCEL_STOP);
  }

  /** Why this reply may not steer the current run (agents/admission.ts `admitControl`), or undefined. */
  private steerRefusal(message: ThreadMessage, runId: string): AdmissionRefusal | undefined {
    const { facts, currentRun } = this.memory;
    if (!facts || !currentRun) return undefined;
    const subject = { kind: 'run' as const, id: runId, ...currentRun };
    const allowed = admitControl(facts, personOf(message), subject, 'steer');
    return allowed.ok ? undefined : allowed;
  }
}
