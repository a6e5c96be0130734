import { recordedExecution } from '../../server/session/test-support/recorded';
import { boundTrajectory, clip, trajectoryOf } from './trajectory';

// The trajectory rem-agent reads, from recorded histories decoded as the session pages decode them.
describe('a trajectory', () => {
  it("of a run: its request, each turn's words and calls, what the calls answered, how it ended", async () => {
    const { workflowId, execution } = await recordedExecution('run/reads-board');
    const part = trajectoryOf(workflowId, 'agentRunWorkflow', [execution]);
    expect(part.kind).toBe('run');
    expect(part.lines[0]).toMatch(/^Request from tester: .*\(review 1 of this unit\)/);
    expect(part.lines).toEqual(
      expect.arrayContaining([
        'Model: Fine.',
        expect.stringMatching(/^ {2}call submit_review \{"verdict":"approve"/),
        'Run ended completed.',
        'Answer: done',
      ]),
    );
    // The run's own housekeeping (its settings, instructions, the board it read) is not the work.
    expect(part.lines.filter((line) => /readBoard|repoSettings|statusCard/.test(line))).toEqual([]);
  });

  it('of a unit: its request, the reviews it posted, its runs, how it settled; its runs are read with it', async () => {
    const { workflowId, execution } = await recordedExecution('unit/settled-consolidated');
    const part = trajectoryOf(workflowId, 'shipUnitWorkflow', [execution]);
    expect(part.lines).toEqual(
      expect.arrayContaining([
        'Unit request from tester: Greet the reader',
        expect.stringMatching(/^Review posted: /),
        expect.stringMatching(/^Run unit:acme\/shop:record-board\/coding-1-1 ended completed\.$/),
        'Unit settled merged.',
      ]),
    );
    expect(part.children).toEqual(
      expect.arrayContaining(['unit:acme/shop:record-board/coding-1-1', 'unit:acme/shop:record-board/review-1-1']),
    );
  });

  it('is bounded: each part keeps its head and tail within its share; credentials never pass', () => {
    const long = {
      workflowId: 'run:t:1',
      kind: 'run' as const,
      lines: Array.from({ length: 400 }, (_, n) => `line ${n} of the work`),
      children: [],
    };
    const text = boundTrajectory([long, { ...long, workflowId: 'run:t:2' }], 4_000);
    expect(text.length).toBeLessThan(4_600);
    expect(text).toContain('line 0 of the work');
    expect(text).toContain('line 399 of the work');
    expect(text).toMatch(/\[… \d+ characters of this trajectory left out …\]/);
    expect(clip(`token ghp_${'a1'.repeat(20)} and ${'x'.repeat(50)}`, 40)).toBe(
      'token [redacted] and xxxxxxxxxxxxxxxxxxx… [31 more characters]',
    );
  });
});
