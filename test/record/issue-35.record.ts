/**
 * Records histories that take issue 35's new `patched()` branch (`npm run record-histories -- -t
 * warm`, see docs/versioning.md): `resident-checkout-prefers-cache-host`, a resident checkout
 * sent to the queue of the host that holds the repository's cache (the local activity that looks
 * the queue's pollers up, then the checkout on that queue), in a ship unit and in a direct review
 * run; the unit's coding run gets its setup copied in from the host. None overwrites an older history.
 */
import { createGitHubActivities, createGitHubIdentities } from '../../activities/github';
import { runStatusQuery, stopSignal, unitStateQuery } from '../../workflows/contracts';
import { saveHistory } from '../helpers/history';
import { REPO, startShipKit, type ShipKit } from '../helpers/ship-kit';
import { waitUntil } from '../helpers/wait';

jest.setTimeout(240_000);

describe('warm repositories: resident checkouts on the cache’s host', () => {
  let ship: ShipKit;
  let model: string;
  beforeAll(async () => {
    ship = await startShipKit('record-warm', { kit: { hostQueue: true, residentQueues: true } });
    ship.github.commit(REPO, 'main', {
      '.gitignore': 'deps/\n',
      'lock.json': '{"v":1}\n',
      '.switchboard.yml': 'setup:\n  commands:\n    - mkdir -p deps && echo built > deps/out.txt\n  lockfiles: [lock.json]\n',
    });
    model = ship.kit.script('warm-record', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Looks right.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          {
            when: { lastUserIncludes: 'review #' },
            text: 'Looks right.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          {
            text: 'Adding the greeting.',
            toolCalls: [
              { name: 'bash', input: { command: 'cat deps/out.txt; echo "Hello." >> README.md' } },
              { name: 'submit_description', input: { title: 'Add a greeting', body: 'Adds a greeting line.' } },
            ],
          },
        ],
      },
      { text: 'Done.' },
    ]);
  });
  afterAll(async () => ship?.close());

  /** A unit run until its review approved, then stopped. */
  async function unitReviewed(slug: string) {
    const unitId = `unit:${REPO}:${slug}`;
    const unit = await ship.start({ unitId, request: `Add a greeting (${slug})`, model });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => ['checks', 'idle', 'settle'].includes(state.phase),
      180_000,
    );
    await unit.signal(stopSignal, { by: 'recorder', reason: 'recorded' });
    await unit.result();
    return unitId;
  }

  // Patch: resident-checkout-prefers-cache-host (shipUnitWorkflow, agentRunWorkflow's direct review).
  test('warm: a unit and a direct review prepared on the host holding the cache', async () => {
    await unitReviewed('record-warm-first');
    const unitId = await unitReviewed('record-warm-second');
    const codingId = `${unitId}/coding-1-1`;
    expect((await ship.kit.client.workflow.getHandle(codingId).query(runStatusQuery)).setup?.state).toBe('restored');
    await saveHistory(ship.kit.client, unitId, 'unit/resident-on-cache-host');
    await saveHistory(ship.kit.client, codingId, 'run/setup-restored-on-cache-host');

    const person = createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: ship.github.apiUrl, gitUrl: ship.github.gitUrl, tokens: { write: 'write-token' } }),
    });
    ship.github.commit(REPO, 'feature', { 'feature.txt': 'a feature\n' });
    const pr = await person.openOrUpdatePullRequest({ repo: REPO, head: 'feature', base: 'main', title: 'F', body: 'f', effectKey: 'f' });
    const { runId } = await ship.kit.start(`in ${REPO}: review #${pr.number}`, { agent: 'review', model });
    const record = await ship.kit.result(runId);
    expect(record.reviewed?.status).toBe('confirmed');
    await saveHistory(ship.kit.client, runId, 'run/direct-review-on-cache-host');
  });
});
