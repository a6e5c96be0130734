import type { ShipUnitInput } from '../contracts';
import { CallLog } from '../test-support';
import type { Unit } from './unit';
import { UNIT, world } from './unit-test-world';
import { initialCarry, readRepository, UNIT_REPO_SETTINGS, unitSearchAttributes } from './unit-start';

const input: ShipUnitInput = {
  unitId: UNIT,
  repo: 'acme/app',
  request: 'Greet the reader',
  replyTarget: { kind: 'cli' },
  requester: { id: 'ada', surface: 'cli' },
};

type RepoSettingsResult = NonNullable<Unit['repository']>;

const settings = (extra: Partial<RepoSettingsResult> = {}, agents?: { allowed: string[]; rule: string }): RepoSettingsResult => ({
  repo: 'acme/app',
  file: 'found',
  fileSha: 'blob-1',
  problems: [],
  settings: { review: { triggers: [], debounceSeconds: 60, severity: 'major' }, issues: { assign: true }, ...(agents ? { agents } : {}) },
  ...extra,
});

/** The start's reads and reply over a call log; `answer` is what repoSettings answers (an Error: it fails). */
function reads(answer: RepoSettingsResult | Error) {
  const log = new CallLog();
  return {
    log,
    activities: {
      repoSettings: log.fn('repoSettings', () => {
        if (answer instanceof Error) throw answer;
        return answer;
      }),
      deliverReply: log.fn('deliverReply', (reply: { effectKey: string }) => ({
        status: 'confirmed' as const,
        effectKey: reply.effectKey,
      })),
    },
  };
}

describe("a unit's start", () => {
  it('carries a request to coding on its default branch, and a seeded pull request to review', () => {
    expect(initialCarry(input, 5)).toEqual({
      phase: 'coding',
      round: 0,
      branch: 'switchboard/acme/app-greet',
      work: [{ kind: 'request', text: 'Greet the reader' }],
      reviews: 0,
      postedReviews: [],
      runMinutes: 0,
      reminders: 0,
      startedAt: 5,
    });
    const seeded = initialCarry({ ...input, request: undefined, pullRequest: 7 }, 5);
    expect(seeded).toMatchObject({ phase: 'review', work: [], pullRequest: 7 });
  });

  it('sets its kind, repository and requester as search attributes, and its thread and pull request when it has them', () => {
    const names = (pairs: ReturnType<typeof unitSearchAttributes>) => pairs.map((pair) => [pair.key.name, pair.value]);
    expect(names(unitSearchAttributes(input, {}))).toEqual([
      ['SwitchboardKind', 'unit'],
      ['Repo', 'acme/app'],
      ['Requester', 'ada'],
    ]);
    expect(names(unitSearchAttributes({ ...input, threadId: 't-1' }, { pullRequest: 7 }))).toEqual([
      ['SwitchboardKind', 'unit'],
      ['Repo', 'acme/app'],
      ['Requester', 'ada'],
      ['Thread', 't-1'],
      ['PullRequest', 7],
    ]);
  });

  it("reads its repository's settings into the unit, and says a broken .switchboard.yml once in its conversation", async () => {
    const w = world();
    const broken = settings({ problems: [{ key: 'review.severity', message: 'must be one of minor, major' }] });
    const { log, activities } = reads(broken);
    await readRepository(w.unit, activities);
    expect(w.unit.repository).toBe(broken);
    expect(log.names()).toEqual(['repoSettings', 'deliverReply']);
    expect(log.inputs('repoSettings')).toEqual([{ repo: 'acme/app' }]);
    expect(log.inputs('deliverReply')[0]).toMatchObject({
      effectKey: 'settings:acme/app@blob-1',
      replyTarget: { kind: 'cli' },
      text: expect.stringContaining('`review.severity`: must be one of minor, major'),
    });
  });

  it('says nothing of the file on a pull request it was started on, nor when the file is sound', async () => {
    const onPr = world({ carry: { pullRequest: 7 } });
    const broken = reads(settings({ problems: [{ key: 'review', message: 'not a map' }] }));
    await readRepository(onPr.unit, broken.activities);
    expect(broken.log.names()).toEqual(['repoSettings']);
    const sound = reads(settings());
    await readRepository(world().unit, sound.activities);
    expect(sound.log.names()).toEqual(['repoSettings']);
  });

  it('refuses itself when the repository does not allow ship, whichever door started it', async () => {
    const w = world();
    const { activities } = reads(settings({}, { allowed: ['explore'], rule: '.switchboard.yml agents.allowed' }));
    await expect(readRepository(w.unit, activities)).rejects.toMatchObject({
      type: 'repo_agent_not_allowed',
      message: expect.stringContaining('acme/app allows only explore to run on it'),
    });
    const allowed = reads(settings({}, { allowed: ['ship'], rule: '.switchboard.yml agents.allowed' }));
    await expect(readRepository(world().unit, allowed.activities)).resolves.toBeUndefined();
  });

  it('goes on without settings when they cannot be read, and reads nothing in histories recorded before the patch', async () => {
    const w = world();
    const failing = reads(new Error('GitHub is down'));
    await expect(readRepository(w.unit, failing.activities)).resolves.toBeUndefined();
    expect(w.unit.repository).toBeUndefined();
    const before = world({ unpatched: [UNIT_REPO_SETTINGS] });
    const untouched = reads(settings({}, { allowed: [], rule: 'r' }));
    await readRepository(before.unit, untouched.activities);
    expect(untouched.log.names()).toEqual([]);
    expect(before.unit.repository).toBeUndefined();
  });
});
