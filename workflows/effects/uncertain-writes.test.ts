import type { EffectResult } from '../contracts/github';
import { resendKey, type UncertainWrite } from '../contracts';
import { UncertainWrites, type UncertainActivities } from './uncertain-writes';

/** Fake writes: each key answers as told (default confirmed); every call is logged. */
function fakes(answers: Record<string, EffectResult['status']>) {
  const calls: Array<{ activity: string; effectKey: string }> = [];
  const answer = (activity: string) => async (input: { effectKey: string }) => {
    calls.push({ activity, effectKey: input.effectKey });
    const status = answers[input.effectKey] ?? 'confirmed';
    return { status, effectKey: input.effectKey, ...(status === 'unconfirmed' ? { reason: 'lost' } : {}) };
  };
  const activities = {
    githubWrites: {
      postComment: answer('postComment'),
      postReview: answer('postReview'),
      openOrUpdatePullRequest: answer('openOrUpdatePullRequest'),
    },
    status: { deliverReply: answer('deliverReply') },
  } as unknown as UncertainActivities;
  return { calls, activities };
}

describe('UncertainWrites', () => {
  const comment = { repo: 'acme/app', number: 7, body: 'The report.', effectKey: 'unit:acme/app#7/report-comment' };

  test('an unconfirmed write is listed with its kind, target, key and text, and announced once', async () => {
    const { activities } = fakes({ [comment.effectKey]: 'unconfirmed' });
    const notices: string[] = [];
    const list: UncertainWrite[] = [];
    const writes = new UncertainWrites(list, activities, {
      now: () => 5,
      workflowId: 'unit:acme/app#7',
      notify: async (_w, text) => void notices.push(text),
    });
    await writes.recording().githubWrites.postComment(comment);
    await writes.recording().githubWrites.postComment({ ...comment, effectKey: 'other' });
    expect(list).toEqual([
      expect.objectContaining({
        kind: 'comment',
        target: 'acme/app#7',
        effectKey: comment.effectKey,
        text: 'The report.',
        reason: 'lost',
        at: 5,
      }),
    ]);
    expect(notices).toEqual([expect.stringContaining('Could not confirm delivery of the comment on acme/app#7')]);
    expect(notices[0]).toContain(`switchboard resend unit:acme/app#7 ${comment.effectKey}`);
  });

  test('a resend sends the same write once under a new key and records who and when; a second one is refused', async () => {
    const { calls, activities } = fakes({ [comment.effectKey]: 'unconfirmed' });
    const list: UncertainWrite[] = [];
    const writes = new UncertainWrites(list, activities, { now: () => 9, workflowId: 'unit:acme/app#7' });
    await writes.recording().githubWrites.postComment(comment);
    const record = await writes.resend({ effectKey: comment.effectKey, by: 'alice', reason: 'not on the PR' });
    expect(record.decision).toEqual({
      by: 'alice',
      at: 9,
      reason: 'not on the PR',
      effectKey: `${comment.effectKey}/resend-1`,
      status: 'confirmed',
    });
    expect(calls.map((c) => c.effectKey)).toEqual([comment.effectKey, `${comment.effectKey}/resend-1`]);
    expect(list[0].resent).toBe(record.decision);
    await expect(writes.resend({ effectKey: comment.effectKey, by: 'bob' })).rejects.toThrow(
      /alice already resent it .* as .*resend-1 \(confirmed\)/,
    );
  });

  test('a confirmed, unknown or anonymous resend is refused with the reason', async () => {
    const { calls, activities } = fakes({});
    const writes = new UncertainWrites([], activities, { now: () => 0, workflowId: 'unit:x' });
    await writes.recording().status.deliverReply({ effectKey: 'unit:x/report', replyTarget: { kind: 'cli' }, text: 'hi' });
    await expect(writes.resend({ effectKey: 'unit:x/report', by: 'a' })).rejects.toThrow(/it was confirmed \(it arrived\)/);
    await expect(writes.resend({ effectKey: 'unit:x/nothing', by: 'a' })).rejects.toThrow(
      /not an unconfirmed write of this workflow.*none/,
    );
    await expect(writes.resend({ effectKey: 'unit:x/report', by: ' ' })).rejects.toThrow(/`by` must not be empty/);
    expect(calls).toHaveLength(1);
  });

  test('a resend that is unconfirmed again is listed under its own key; keys count up', async () => {
    const key = 'run:t:1/answer';
    const { activities } = fakes({ [key]: 'unconfirmed', [`${key}/resend-1`]: 'unconfirmed' });
    const list: UncertainWrite[] = [];
    const writes = new UncertainWrites(list, activities, { now: () => 0, workflowId: 't' });
    await writes
      .recording()
      .status.deliverReply({ effectKey: key, replyTarget: { kind: 'slack', team: 'T', channel: 'C', threadTs: '1.2' }, text: 'answer' });
    await writes.resend({ effectKey: key, by: 'ops' });
    expect(list.map((w) => [w.effectKey, w.target, w.resent?.status])).toEqual([
      [key, 'slack C/1.2', 'unconfirmed'],
      [`${key}/resend-1`, 'slack C/1.2', undefined],
    ]);
    expect(resendKey(`${key}/resend-1`)).toBe(`${key}/resend-2`);
  });
});
