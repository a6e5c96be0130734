import type { ReplyTarget, RunRecord } from '../contracts';
import { stuckRunNotice, type StuckRun } from './run-watch';

/**
 * What a thread answers when its run has ended: the run's answer; for a run stopped before it
 * answered, who stopped it and why, with what it had written so far marked as unfinished (never
 * passed off as the answer); else how it ended.
 */
export function runAnswer(
  record: RunRecord | undefined,
  ended: { stuck?: StuckRun; terminated?: boolean },
  replyTarget: ReplyTarget,
): string {
  if (ended.stuck) return stuckRunNotice(ended.stuck);
  if (record?.outcome === 'stopped') {
    const by = record.stop?.by ? ` by ${personWords(record.stop.by, replyTarget)}` : '';
    const why = record.stop?.reason ? ` (${record.stop.reason})` : '';
    const partial = record.finalText.trim();
    return partial
      ? `The run was stopped${by}${why} before it finished. What it had written so far, unfinished:\n\n${partial}`
      : `The run was stopped${by}${why} before it answered.`;
  }
  if (record?.finalText) return record.finalText;
  if (record) return `The run ended ${record.outcome}${record.endedBy ? ` (${record.endedBy})` : ''}.`;
  return ended.terminated
    ? 'The run was terminated (from Temporal, by an operator) before it produced an answer.'
    : 'The run failed before it produced an answer.';
}

/** A person as the conversation names them: a Slack mention (shown as their name), a GitHub login, else as given. */
export function personWords(by: string, replyTarget: ReplyTarget): string {
  if (replyTarget.kind === 'slack' && /^[UW][A-Z0-9]{2,}$/.test(by)) return `<@${by}>`;
  return by.replace(/^github:/, '');
}
