import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { unitStateQuery } from '../workflows/contracts';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { timeSkippingEnvironment } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(240_000);

describe('ship unit timers on the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  let ship: ShipKit;
  beforeAll(async () => {
    env = await timeSkippingEnvironment();
    // Production timer settings: a 2-minute CI poll, 7 idle days, a reminder every 48 hours.
    ship = await startShipKit('ship-timers', { env, ship: { checksPollSeconds: 120, idleTimeoutDays: 7, reminderHours: 48 } });
  });
  afterAll(async () => {
    await ship.close();
    await env.teardown();
  });

  it('finds green CI through the poll fallback, then idles 7 days with reminders and settles idle-expired', async () => {
    const model = ship.model([
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Fine.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          { text: 'Changing.', toolCalls: [{ name: 'bash', input: { command: 'echo "Hello" >> README.md' } }] },
        ],
      },
      { text: 'done' },
    ]);
    const unit = await ship.start({ unitId: `unit:${REPO}:timers`, request: 'Greet the reader', model });
    const query = () => unit.query(unitStateQuery);

    const reviewing = await waitUntil(query, (state) => state.phase === 'review' && Boolean(state.headSha));
    ship.github.setCheckRun(REPO, reviewing.headSha!, { name: 'ci', status: 'in_progress', conclusion: null });
    const pending = await waitUntil(query, (state) => state.phase === 'checks' && (state.checks?.polls ?? 0) >= 1);
    expect(pending.checks?.state).toBe('waiting');
    expect(pending.nextTimer?.purpose).toBe('checks poll');

    // CI finishes, but no webhook ever arrives: only the poll timer can notice.
    ship.github.setCheckRun(REPO, reviewing.headSha!, { name: 'ci', status: 'completed', conclusion: 'success' });
    await env.sleep('3 minutes');
    const idle = await waitUntil(query, (state) => state.phase === 'idle');
    expect(idle.checks).toMatchObject({ state: 'success', polls: 2 });

    const record = await unit.result();
    expect(record.outcome).toBe('idle_expired');
    const settled = await query();
    expect(settled.reminders).toBe(3);
    const pull = ship.github.state.repo('acme', 'app')!.issues.get(idle.pullRequest!)!;
    expect(pull.comments.filter((comment) => comment.body.includes('idle for too long'))).toHaveLength(1);
  });
});
