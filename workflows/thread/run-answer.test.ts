import type { RunRecord } from '../contracts';
import { personWords, runAnswer } from './run-answer';

const record = (extra: Partial<RunRecord>) => ({ outcome: 'completed', finalText: 'Done.', ...extra }) as RunRecord;
const slack = { kind: 'slack' as const, team: 'T', channel: 'C', threadTs: '1.2' };
const github = { kind: 'github' as const, repo: 'a/b', pullRequest: 3 };

describe("a thread's answer for its run", () => {
  it('is the answer of a completed run', () => {
    expect(runAnswer(record({}), {}, slack)).toBe('Done.');
  });

  it('marks a stopped run’s last words unfinished and says who stopped it, as the conversation names people', () => {
    const stopped = record({ outcome: 'stopped', finalText: 'Half a thought', stop: { by: 'U0ANA', reason: 'enough' } });
    expect(runAnswer(stopped, {}, slack)).toBe(
      'The run was stopped by <@U0ANA> (enough) before it finished. What it had written so far, unfinished:\n\nHalf a thought',
    );
    expect(runAnswer({ ...stopped, finalText: '', stop: { by: 'github:ana' } }, {}, github)).toBe(
      'The run was stopped by ana before it answered.',
    );
    expect(personWords('U0ANA', github)).toBe('U0ANA');
  });

  it('says how a run without an answer ended', () => {
    expect(runAnswer(record({ outcome: 'budget', finalText: '', endedBy: 'the 5-minute budget' }), {}, slack)).toBe(
      'The run ended budget (the 5-minute budget).',
    );
    expect(runAnswer(undefined, { terminated: true }, slack)).toMatch(/terminated/);
    expect(runAnswer(undefined, {}, slack)).toBe('The run failed before it produced an answer.');
  });
});
