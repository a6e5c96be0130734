import { recordedExecution } from '../test-support/recorded';
import { buildUnitSession } from './unit-session';

describe('a ship unit’s session, from its history', () => {
  it('lays out the phases, each round’s run, commit, push and PR, each review with its findings, checks and reports', async () => {
    const { workflowId, execution } = await recordedExecution('unit/merged');
    const session = buildUnitSession(workflowId, [execution]);
    expect(session).toMatchObject({ open: false, pullRequest: 1, maxRounds: 3, budgetMinutes: 90, record: { outcome: 'merged' } });
    expect(session.timeline.map((entry) => entry.phase)).toEqual(['coding', 'review', 'findings', 'review', 'checks', 'idle', 'settle']);
    expect(session.rounds.map((round) => [round.round, round.items.map((item) => item.kind)])).toEqual([
      [1, ['run', 'commit', 'push', 'pullRequest', 'run', 'reviewPosted']],
      [2, ['run', 'commit', 'push', 'run', 'reviewPosted', 'checks', 'signal', 'checks', 'report', 'signal', 'report', 'report']],
    ]);
    const review = session.rounds[0].items.find((item) => item.kind === 'run' && item.role === 'review');
    expect(review).toMatchObject({ review: { verdict: 'request_changes', findings: [{ severity: 'minor', path: 'README.md', line: 1 }] } });
    expect(session.rounds[0].items.find((item) => item.kind === 'reviewPosted')).toMatchObject({
      body: expect.stringContaining('Verdict: changes requested'),
      result: { status: 'confirmed' },
    });
    // The diff the last review read, against the base, and one per reviewed head.
    expect(session.diff).toMatchObject({ base: 'main', files: [{ path: 'README.md', status: 'modified' }] });
    expect(session.diffs.map((diff) => diff.headSha)).toHaveLength(2);
    expect(session.runMinutes).toBeGreaterThan(0);
  });

  it('puts an exact PR’s first review before the first coding round, and a person’s steer and stop where they arrived', async () => {
    const { workflowId, execution } = await recordedExecution('unit/exact-pr-steered');
    const session = buildUnitSession(workflowId, [execution]);
    expect(session.rounds.map((round) => round.round)).toEqual([0, 1]);
    expect(session.rounds[0].items.map((item) => item.kind)).toContain('steer');
    expect(session.rounds[1].items.map((item) => item.kind)).toContain('stop');
    expect(session.record?.outcome).toBe('stopped');
  });

  it('takes the live state’s timer for an open unit', async () => {
    const { workflowId, execution } = await recordedExecution('unit/merged');
    const open = { ...execution, events: execution.events.filter((event) => event.kind !== 'closed') };
    const at = new Date(Date.now() + 60_000).toISOString();
    const session = buildUnitSession(workflowId, [open], {
      state: {
        unitId: workflowId,
        repo: 'acme/app',
        requester: 'tester',
        phase: 'idle',
        round: 2,
        maxRounds: 3,
        branch: 'b',
        reminders: 0,
        nextTimer: { purpose: 'idle reminder', at },
      },
    });
    expect(session.open).toBe(true);
    expect(session.nextTimer).toMatchObject({ label: 'idle reminder', fireAt: Date.parse(at) });
  });
});
