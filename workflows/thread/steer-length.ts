import type { AdmissionRefusal } from '../../agents';
import { MAX_STEER_CHARS, type ThreadMessage } from '../contracts';

/**
 * The `patched()` id of a thread refusing, in the conversation, a reply for its running run that
 * is longer than a steer may be: the run would drop it unseen (workflows/input-guard.ts).
 * Asked only for such a reply, so other histories carry no marker (docs/versioning.md).
 */
export const THREAD_STEER_LENGTH = 'thread-steer-length-bound';

/** The refusal of a reply too long to steer the running run with, or undefined. */
export function steerTooLong(message: ThreadMessage, patched: (id: string) => boolean): AdmissionRefusal | undefined {
  if (message.text.length <= MAX_STEER_CHARS || !patched(THREAD_STEER_LENGTH)) return undefined;
  return {
    ok: false,
    code: 'steer_too_long',
    rule: 'steer length',
    message:
      `That reply is ${message.text.length} characters long, and the running run takes a steer of at most ${MAX_STEER_CHARS}, ` +
      'so it was not sent to it. Say it in fewer words (or attach the long part as a file), or stop the run and ask again.',
  };
}
