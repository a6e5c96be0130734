import type { RunRecord } from '../contracts';
import { endedOf, RunEnds, savedOutcome } from './run-ends';
import { runAnswer } from './run-answer';
import type { EndedRun } from './run-ends';

const answerOf = (ended: EndedRun) => runAnswer(ended.record, ended, { kind: 'cli' });

const record = { runId: 'run:t:2', outcome: 'completed', finalText: 'Done.' } as RunRecord;

describe('RunEnds', () => {
  it("keeps the current run's end until the thread takes it, once", () => {
    let current: string | undefined = 'run:t:2';
    const ends = new RunEnds(() => current);
    expect(ends.has('run:t:2')).toBe(false);
    ends.receive({ runId: 'run:t:2', record });
    expect(ends.has('run:t:2')).toBe(true);
    expect(ends.take('run:t:2')).toEqual({ record });
    expect(ends.take('run:t:2')).toBeUndefined();
    current = undefined;
    ends.receive({ runId: 'run:t:2', record });
    expect(ends.has('run:t:2')).toBe(false);
  });

  it('drops an end of a run that is not the current one (a reset run ending again, a hand-sent one)', () => {
    const ends = new RunEnds(() => 'run:t:3');
    ends.receive({ runId: 'run:t:2', record });
    expect(ends.has('run:t:2')).toBe(false);
    expect(ends.has('run:t:3')).toBe(false);
  });
});

describe('endedOf', () => {
  it('answers from the record, else says terminated or failed', () => {
    expect(endedOf({ record })).toEqual({ record });
    expect(endedOf({ terminated: true })).toEqual({ terminated: true });
    expect(endedOf({ failed: 'a bug' })).toEqual({ failed: 'a bug' });
    expect(endedOf({})).toEqual({ failed: 'it ended without a record' });
  });
});

describe('runAnswer and savedOutcome of an ended run', () => {
  it("say the run's answer, or how it ended without one", () => {
    expect([answerOf({ record }), savedOutcome({ record })]).toEqual(['Done.', 'completed']);
    const bounded = { ...record, finalText: '', outcome: 'budget', endedBy: 'the 15-minute budget' } as RunRecord;
    expect(answerOf({ record: bounded })).toBe('The run ended budget (the 15-minute budget).');
    expect([answerOf({ terminated: true }), savedOutcome({ terminated: true })]).toEqual([
      'The run was terminated (from Temporal, by an operator) before it produced an answer.',
      'stopped',
    ]);
    expect([answerOf({ failed: 'a bug' }), savedOutcome({ failed: 'a bug' })]).toEqual([
      'The run failed before it produced an answer.',
      'failed',
    ]);
    expect(answerOf({ stuck: { runId: 'run:t:9', attempts: 4 } })).toContain('run:t:9 is stuck');
  });
});
