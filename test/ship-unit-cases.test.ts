import { stopSignal, unitStateQuery, type RunRecord } from '../workflows/contracts';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(180_000);

const minorFinding = {
  severity: 'minor',
  path: 'README.md',
  line: 1,
  title: 'Wording',
  scenario: 'The greeting has no punctuation.',
  impact: 'It reads oddly.',
};
const codingTurn = {
  text: 'Changing.',
  toolCalls: [
    { name: 'bash', input: { command: 'echo "Hello" >> README.md' } },
    { name: 'submit_description', input: { title: 'Greet', body: 'Greets.' } },
  ],
};

describe('the review gate set to major', () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('ship-gate', { ship: { addressSeverity: 'major' } });
  });
  afterAll(async () => ship.close());

  it('leaves a minor finding unaddressed and approves', async () => {
    const model = ship.model([
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'One nit-level minor.',
            toolCalls: [
              {
                name: 'submit_review',
                input: { verdict: 'request_changes', summary: 'Fine apart from wording.', findings: [minorFinding] },
              },
            ],
          },
          codingTurn,
        ],
      },
      { text: 'done' },
    ]);
    const unit = await ship.start({ unitId: `unit:${REPO}:gate-major`, request: 'Greet the reader', model });
    const idle = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle',
    );
    expect(idle.lastReview).toMatchObject({
      verdict: 'approve',
      addressed: 0,
      counts: { minor: 1, major: 0, blocking: 0, nit: 0 },
      posted: 'confirmed',
    });
    expect(idle.round).toBe(1);
    await unit.signal(stopSignal, { reason: 'test done', by: 'tester' });
    expect(await unit.result()).toMatchObject({ outcome: 'stopped', rounds: 1, reviews: 1 });
  });
});

describe('a unit whose PR head moves during review', () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('ship-moved');
  });
  afterAll(async () => ship.close());

  it('reviews again and posts nothing for the old commit', async () => {
    const model = ship.model([
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            delayMs: 2_500,
            text: 'Reviewed.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          codingTurn,
        ],
      },
      { text: 'done' },
    ]);
    const unitId = `unit:${REPO}:head-moves`;
    const unit = await ship.start({ unitId, request: 'Greet the reader', model });
    const reviewing = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'review' && Boolean(state.currentRun),
    );
    const oldHead = reviewing.headSha!;
    const movedHead = ship.github.commit(REPO, reviewing.branch, { 'NOTES.md': 'pushed by someone else\n' }, 'A colleague pushes');
    const idle = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle',
    );
    expect(idle.headSha).toBe(movedHead);
    const pull = ship.github.state.repo('acme', 'app')!.issues.get(idle.pullRequest!)!;
    expect(pull.reviews.map((review) => review.commitId)).toEqual([movedHead]);
    expect(pull.reviews.some((review) => review.commitId === oldHead)).toBe(false);
    await unit.signal(stopSignal, { reason: 'test done' });
    await unit.result();
  });
});

describe('stopping a unit during coding', () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('ship-stop');
  });
  afterAll(async () => ship.close());

  it('stops the coding run and settles stopped without a PR', async () => {
    const model = ship.model([
      { text: 'Working slowly.', toolCalls: [{ name: 'bash', input: { command: 'sleep 4242' } }] },
      { text: 'never' },
    ]);
    const unitId = `unit:${REPO}:stop-me`;
    const unit = await ship.start({ unitId, request: 'Add a slow change', model });
    const coding = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'coding' && Boolean(state.currentRun),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await unit.signal(stopSignal, { reason: 'changed my mind', by: 'tester' });
    const record = await unit.result();
    expect(record).toMatchObject({ outcome: 'stopped', endedBy: 'stopped by tester: changed my mind' });
    expect(record.pullRequest).toBeUndefined();
    const run = (await ship.kit.env.client.workflow.getHandle(coding.currentRun!).result()) as RunRecord;
    expect(run.outcome).toBe('stopped');
    expect(ship.github.state.countWrites('pull_request.create', REPO)).toBe(0);
    expect(ship.github.state.countWrites('push', REPO)).toBe(0);
  });

  it('settles stopped, starting no coding run, when the stop comes right after the start', async () => {
    const model = ship.model([
      { text: 'Working slowly.', toolCalls: [{ name: 'bash', input: { command: 'sleep 4343' } }] },
      { text: 'never' },
    ]);
    const unit = await ship.start({ unitId: `unit:${REPO}:stop-early`, request: 'Add another slow change', model });
    await unit.signal(stopSignal, { reason: 'too early', by: 'tester' });
    const record = await unit.result();
    expect(record).toMatchObject({ outcome: 'stopped', endedBy: 'stopped by tester: too early' });
    const coding = await ship.kit.env.client.workflow
      .getHandle(`unit:${REPO}:stop-early/coding-1-1`)
      .describe()
      .then(
        (run) => run.status.name,
        () => 'never started',
      );
    expect(['never started', 'COMPLETED']).toContain(coding);
    expect(ship.github.state.countWrites('push', REPO)).toBe(0);
  });
});
