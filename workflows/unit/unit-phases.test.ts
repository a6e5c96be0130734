import { approve, finding, MINUTE, UNIT, world } from './unit-test-world';
import { ChecksRound } from './checks-round';
import { CodingRound } from './coding-round';
import { IdleRound } from './idle-round';
import { ReviewRound } from './review-round';
import { Settle } from './settle';
import { LOST_ROUND_NOTE } from './unit-hosts';
import { LOST_WORK_NOTE, MAX_RERUN_ROUNDS } from './lost-work';
import { unitInspectTool } from '../../tools/unit-inspect';
import { ANSWERS_FINDINGS } from './findings-ledger';
import { UnitSpend } from './unit-spend';

describe('CodingRound', () => {
  it('runs the coding child, commits, pushes and opens the PR, then moves to review', async () => {
    const w = world({ run: () => ({ submissions: { submit_description: { title: 'Greet', body: 'Greets.' } } }) });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(w.log.names()).toEqual(['prepareUnitWorkspace', 'commitWorkspace', 'pushBranch', 'openOrUpdatePullRequest']);
    expect(w.runs).toEqual([{ workflowId: `${UNIT}/coding-1-1`, request: expect.stringContaining('Greet the reader') }]);
    expect(w.log.inputs('pushBranch')[0]).toMatchObject({ effectKey: `${UNIT}/push/1`, branch: 'switchboard/acme/app-greet' });
    expect(w.log.inputs('openOrUpdatePullRequest')[0]).toMatchObject({ effectKey: `${UNIT}/pr/open`, title: 'Greet', body: 'Greets.' });
    expect(w.unit.carry).toMatchObject({ round: 1, pullRequest: 7, headSha: 'head-1', work: [], runMinutes: 3 });
    expect(w.phases).toEqual(['review']);
  });

  it('fails the unit when the coding run changed nothing and there is no PR yet', async () => {
    const w = world({ run: () => ({}), changed: false });
    expect(await new CodingRound(w.unit).run()).toBe('failed');
    expect(w.unit.endedBy).toBe('the coding run made no change');
    expect(w.log.names()).not.toContain('pushBranch');
  });

  const lostCommand = {
    toolCalls: [
      {
        turn: 1,
        name: 'bash',
        ok: false,
        error: 'The command did not report a result (activity heartbeat timeout). It may or may not have run',
      },
    ],
  };

  it('runs the round again, noted in the record, when a command was lost with its worker and nothing changed', async () => {
    const w = world({ run: () => lostCommand, changed: false });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(w.log.names()).toEqual(['prepareUnitWorkspace', 'commitWorkspace']);
    expect(w.unit.carry.rerunRounds).toEqual([{ round: 1, reason: expect.stringContaining('did not report a result') }]);
    expect(w.unit.carry.work).toEqual([
      { kind: 'request', text: 'Greet the reader' },
      { kind: 'steer', text: LOST_WORK_NOTE, by: 'switchboard' },
    ]);
    expect(w.phases).toEqual([]);
    expect(w.unit.state().rerunRounds).toHaveLength(1);
    // The next round is a new run, told why; the re-run round does not count against maxRounds.
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(w.runs.map((run) => run.workflowId)).toEqual([`${UNIT}/coding-1-1`, `${UNIT}/coding-2-1`]);
    expect(w.runs[1].request).toContain(LOST_WORK_NOTE);
    const report = await new Settle(w.unit).run('failed');
    expect(report.rerunRounds).toHaveLength(2);
    expect(report.report).toContain('Coding round 1 ran again: a bash command of the coding run did not report a result');
  });

  it('opens the PR from the branch when a round lost after its push landed left nothing new to commit', async () => {
    const w = world({ run: () => ({}), changed: false, prepared: { headSha: 'pushed-1', baseSha: 'base-0' } });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(w.log.names()).toEqual(['prepareUnitWorkspace', 'commitWorkspace', 'openOrUpdatePullRequest']);
    expect(w.unit.carry).toMatchObject({ pullRequest: 7, headSha: 'head-1', work: [] });
    expect(w.phases).toEqual(['review']);
    // A branch still at its base has nothing of the unit's: no change fails as before.
    const fresh = world({ run: () => ({}), changed: false, prepared: { headSha: 'base-0', baseSha: 'base-0' } });
    expect(await new CodingRound(fresh.unit).run()).toBe('failed');
    expect(fresh.unit.endedBy).toBe('the coding run made no change');
  });

  it('runs the round again when the coding run failed or was cut, but not when it was stopped', async () => {
    const failed = world({ run: () => ({ outcome: 'failed', endedBy: 'model_unavailable' }) });
    expect(await new CodingRound(failed.unit).run()).toBeUndefined();
    expect(failed.unit.carry.rerunRounds).toEqual([{ round: 1, reason: 'the coding run ended failed (model_unavailable)' }]);
    expect(failed.log.names()).toEqual(['prepareUnitWorkspace']);
    const cut = world({ run: () => ({ outcome: 'turns', endedBy: '40 turns' }) });
    expect(await new CodingRound(cut.unit).run()).toBeUndefined();
    expect(cut.unit.carry.rerunRounds).toHaveLength(1);
    const gone = world({ run: () => undefined });
    expect(await new CodingRound(gone.unit).run()).toBeUndefined();
    expect(gone.unit.carry.rerunRounds).toEqual([{ round: 1, reason: 'the coding run ended without a record' }]);
    const stopped = world({ run: () => ({ outcome: 'stopped', endedBy: 'ada stopped it' }) });
    expect(await new CodingRound(stopped.unit).run()).toBe('failed');
    expect(stopped.unit.endedBy).toBe('the coding run ended stopped (ada stopped it)');
  });

  it('fails as before once the unit ran out of re-runs, and in histories from before the patch', async () => {
    const spent = world({
      run: () => lostCommand,
      changed: false,
      carry: { rerunRounds: Array.from({ length: MAX_RERUN_ROUNDS }, (_, i) => ({ round: i + 1, reason: 'lost' })), round: 3 },
    });
    expect(await new CodingRound(spent.unit).run()).toBe('failed');
    expect(spent.unit.endedBy).toBe('the coding run made no change');
    const old = world({ run: () => ({ outcome: 'failed' }) });
    old.unit.ports.patched = () => false;
    expect(await new CodingRound(old.unit).run()).toBe('failed');
    expect(old.unit.endedBy).toBe('the coding run ended failed');
  });

  it('goes on to review with the PR it has when a findings round changed nothing and lost nothing', async () => {
    const w = world({ run: () => ({}), changed: false, carry: { pullRequest: 7, phase: 'findings', round: 1 } });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(w.unit.carry.rerunRounds).toBeUndefined();
    expect(w.phases).toEqual(['review']);
  });

  it('fails the unit when the push is refused, and opens no PR', async () => {
    const w = world({ run: () => ({}), write: { status: 'refused', code: 'stale_lease', reason: 'lease' } });
    expect(await new CodingRound(w.unit).run()).toBe('failed');
    expect(w.unit.endedBy).toBe('the push was refused: lease');
    expect(w.log.names()).not.toContain('openOrUpdatePullRequest');
  });

  it('starts nothing once stopped, and ends out of rounds or budget before any work', async () => {
    const stopped = world({ run: () => ({}) });
    stopped.unit.inbox.stop({ reason: 'enough' });
    expect(await new CodingRound(stopped.unit).run()).toBeUndefined();
    expect(stopped.runs).toEqual([]);
    expect(await new CodingRound(world({ carry: { round: 4 } }).unit).run()).toBe('out_of_rounds');
    expect(await new CodingRound(world({ carry: { runMinutes: 120 } }).unit).run()).toBe('budget');
  });
});

describe('a unit of a plan asked on GitHub', () => {
  it('converses on its pull request once it has one, and reports there once', async () => {
    const w = world({ conversation: 'pull-request', run: () => ({}) });
    expect(w.unit.replyTarget).toMatchObject({ kind: 'github', pullRequest: 3 });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    // Its first coding run reported in the plan's conversation; from its PR on, everything goes to #7.
    expect(w.replyTargets).toEqual(['#3']);
    expect(w.unit.replyTarget).toEqual({ kind: 'github', repo: 'acme/app', pullRequest: 7 });
    await new Settle(w.unit).run('stopped');
    expect(w.log.inputs('deliverReply').map((input) => (input as { effectKey: string }).effectKey)).not.toContain(`${UNIT}/report`);
    expect(w.log.inputs('postComment')).toEqual([expect.objectContaining({ number: 7, effectKey: `${UNIT}/report-comment` })]);
  });
});

describe("a unit's money under a daily spend cap", () => {
  const spend = { people: {}, channels: {}, repos: { 'acme/app': { dailyUsd: 1 } }, agents: {}, reserve: { unitRoundUsd: 0.25 } };

  it('reserves what it spent plus a round before each round, and releases to what it spent when it settles', async () => {
    const w = world({ spend, run: () => ({ cost: { usd: 0.1, searches: 0, searchUsd: 0, unpriced: [] } }) });
    const asked: Array<{ atLeastUsd?: number; holder: string }> = [];
    const released: Array<{ holder: string; spentUsd?: number }> = [];
    w.unit.spend = new UnitSpend(w.unit, {
      reserve: async (request) => {
        asked.push(request);
        return { kind: 'admit', runCap: { usd: request.atLeastUsd!, boundedBy: 'a round' }, held: request.atLeastUsd! };
      },
      release: async (release) => void released.push(release),
    });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(asked).toEqual([
      expect.objectContaining({ holder: UNIT, kind: 'unit', atLeastUsd: 0.25, caps: [{ kind: 'repo', id: 'acme/app', dailyUsd: 1 }] }),
    ]);
    expect(w.unit.state().spend).toEqual({ spentUsd: 0.1, reservedUsd: 0.25 });
    // The next round asks for what the unit spent plus another round.
    w.unit.carry.work.push({ kind: 'steer', text: 'more' });
    w.unit.enter('coding');
    await new CodingRound(w.unit).run();
    expect(asked[1]).toMatchObject({ atLeastUsd: 0.35 });
    await new Settle(w.unit).run('stopped');
    expect(released).toEqual([{ holder: UNIT, spentUsd: 0.2, by: UNIT }]);
  });

  it('settles `spend` before the round when the caps cannot fund it, saying which cap and when it resets', async () => {
    const w = world({ spend, run: () => ({}) });
    w.unit.spend = new UnitSpend(w.unit, {
      reserve: async () => ({
        kind: 'refuse',
        code: 'spend_cap',
        reply: 'Not started: Runs on acme/app have spent $1.00 today, and its daily spend cap is $1.00. The cap resets at 00:00 UTC.',
        scope: 'repo',
        id: 'acme/app',
        spentUsd: 1,
        capUsd: 1,
        resetsAt: 0,
      }),
      release: async () => undefined,
    });
    expect(await new CodingRound(w.unit).run()).toBe('spend');
    expect(w.runs).toEqual([]);
    expect(w.unit.endedBy).toBe(
      'its next round could not be funded: Runs on acme/app have spent $1.00 today, and its daily spend cap is $1.00. The cap resets at 00:00 UTC.',
    );
    expect((await new Settle(w.unit).run('spend')).report).toMatch(
      /^Ship unit unit:acme\/app:greet out of money: its next round could not be funded/,
    );
  });
});

describe('CodingRound of an exact-PR unit', () => {
  const steered = { pullRequest: 7, headSha: 'pr-head', work: [{ kind: 'steer' as const, text: 'Add a line' }] };
  const description = { submissions: { submit_description: { title: 'Ours', body: 'Ours.' } } };

  it("pushes to the PR's head branch on top of the head it started from, and keeps the PR's title", async () => {
    const w = world({
      exactPr: true,
      carry: steered,
      run: () => description,
      pull: { headRef: 'feature', headRepo: 'acme/app', headSha: 'pr-head' },
    });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(w.log.names()).toEqual(['githubPullGet', 'prepareUnitWorkspace', 'pushBranch', 'commitWorkspace', 'pushBranch']);
    expect(w.log.inputs('prepareUnitWorkspace')[0]).toMatchObject({ branch: 'feature', base: 'main' });
    expect(w.log.inputs('pushBranch')[0]).toMatchObject({ branch: 'feature', dryRun: true });
    expect(w.log.inputs('pushBranch')[1]).toMatchObject({ branch: 'feature', expectedRemoteSha: 'pr-head' });
    expect(w.unit.carry).toMatchObject({ branch: 'feature', headSha: 'head-1' });
  });

  it('stops with the reason, starting no run, when the write identity may not push to the branch', async () => {
    const w = world({
      exactPr: true,
      carry: steered,
      run: () => description,
      pull: { headRef: 'feature', headRepo: 'acme/app' },
      write: { status: 'refused', code: 'forbidden', reason: 'protected branch' },
    });
    expect(await new CodingRound(w.unit).run()).toBe('failed');
    expect(w.unit.endedBy).toBe('Switchboard may not push to feature, the branch of pull request #7 (protected branch); it made no change');
    expect(w.runs).toEqual([]);
  });

  it("stops with the reason, starting no run, when the PR's branch is in a fork", async () => {
    const w = world({ exactPr: true, carry: steered, run: () => description, pull: { headRef: 'feature', headRepo: 'someone/app' } });
    expect(await new CodingRound(w.unit).run()).toBe('failed');
    expect(w.unit.endedBy).toMatch(
      /^pull request #7's branch feature is in someone\/app, not acme\/app; Switchboard pushes only to branches of acme\/app/,
    );
    expect(w.runs).toEqual([]);
    expect(w.log.names()).toEqual(['githubPullGet']);
  });
});

describe('checkouts on their host', () => {
  it('sends the checkout run, commit and push to the host that prepared it, and releases it there', async () => {
    const w = world({ run: () => ({ workspaceHost: 'q@a' }), host: {} });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(w.log.names()).toEqual(['prepareUnitWorkspace', 'commitWorkspace@q@a', 'pushBranch@q@a', 'openOrUpdatePullRequest']);
    expect(w.runs[0]?.workspaceHost).toBe('q@a');
    expect(w.unit.carry.hosts).toEqual({ [UNIT]: 'q@a' });
    await new Settle(w.unit).run('merged');
    // The review checkout was never prepared on a known host: released on the shared queue, as before.
    expect(w.log.names().filter((name) => name.startsWith('release'))).toEqual(['releaseWorkspace@q@a', 'releaseWorkspace']);
  });

  it.each(['commitWorkspace', 'pushBranch'] as const)(
    'a host found gone at %s costs the round: the work stays with a note, and the next round prepares the checkout again',
    async (lostAt) => {
      const w = world({ run: () => ({ workspaceHost: 'q@a' }), host: { lostAt } });
      expect(await new CodingRound(w.unit).run()).toBeUndefined();
      expect(w.log.names()).not.toContain('openOrUpdatePullRequest');
      expect(w.unit.carry).toMatchObject({ round: 1, hosts: {} });
      expect(w.unit.carry.work).toEqual([
        { kind: 'request', text: 'Greet the reader' },
        { kind: 'steer', text: LOST_ROUND_NOTE, by: 'switchboard' },
      ]);
      expect(w.phases).toEqual([]);
      await new CodingRound(w.unit).run();
      expect(w.log.names().filter((name) => name === 'prepareUnitWorkspace')).toHaveLength(2);
      expect(w.runs[1]?.request).toContain(LOST_ROUND_NOTE);
    },
  );

  it('a coding run that lost the checkout with its host commits nothing from it', async () => {
    const w = world({ run: () => ({ workspaceHost: 'q@b', workspaceLosses: 1 }), host: {} });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(w.log.names()).toEqual(['prepareUnitWorkspace']);
    expect(w.unit.carry.work.map((item) => item.kind)).toEqual(['request', 'steer']);
  });
});

describe('ReviewRound', () => {
  const onPr = { phase: 'review' as const, round: 1, pullRequest: 7, headSha: 'head-1', work: [] };

  it('does not review a commit it already reviewed: it goes on to checks with that review', async () => {
    const lastReview = {
      verdict: 'approve' as const,
      commitSha: 'head-1',
      counts: { blocking: 0, major: 0, minor: 0, nit: 0 },
      addressed: 0,
      posted: 'confirmed' as const,
    };
    const w = world({ carry: { ...onPr, lastReview, reviews: 1 }, run: () => approve });
    expect(await new ReviewRound(w.unit).run()).toBeUndefined();
    expect(w.runs).toEqual([]);
    expect(w.log.names()).toEqual(['githubPullGet']);
    expect(w.unit.carry).toMatchObject({ reviews: 1, checks: { state: 'waiting', headSha: 'head-1' } });
    expect(w.phases).toEqual(['checks']);
  });

  it('reviews a head again, under a key of its own, when its own review of it asked for changes (issue 32)', async () => {
    const lastReview = {
      verdict: 'request_changes' as const,
      commitSha: 'head-1',
      counts: { blocking: 0, major: 1, minor: 0, nit: 0 },
      addressed: 1,
      posted: 'confirmed' as const,
    };
    const w = world({ carry: { ...onPr, lastReview, reviews: 1, reviewedShas: ['head-1'] }, run: () => approve });
    expect(await new ReviewRound(w.unit).run()).toBeUndefined();
    expect(w.runs).toHaveLength(1);
    expect(w.log.inputs('postReview')[0]).toMatchObject({ commitSha: 'head-1', effectKey: `${UNIT}/review/head-1/2` });
    expect(w.unit.carry.lastReview).toMatchObject({ verdict: 'approve', commitSha: 'head-1' });
    expect(w.phases).toEqual(['checks']);
  });

  it('posts an approval to the reviewed head and waits for CI', async () => {
    const w = world({ carry: onPr, run: () => approve });
    expect(await new ReviewRound(w.unit).run()).toBeUndefined();
    expect(w.log.inputs('postReview')[0]).toMatchObject({ commitSha: 'head-1', effectKey: `${UNIT}/review/head-1`, number: 7 });
    expect(w.unit.carry).toMatchObject({ reviews: 1, postedReviews: [99], checks: { state: 'waiting', headSha: 'head-1', polls: 0 } });
    expect(w.unit.carry.lastReview).toMatchObject({ verdict: 'approve', posted: 'confirmed' });
    expect(w.phases).toEqual(['checks']);
  });

  it('turns findings at or above the gate into work for a findings round (histories before issue 33)', async () => {
    const w = world({
      unpatched: [ANSWERS_FINDINGS],
      carry: onPr,
      run: () => ({ submissions: { submit_review: { verdict: 'request_changes', summary: 'One defect.', findings: [finding] } } }),
    });
    await new ReviewRound(w.unit).run();
    expect(w.unit.carry.work).toEqual([{ kind: 'findings', source: 'review', findings: [finding] }]);
    expect(w.phases).toEqual(['findings']);
  });

  it('asks again once after an invalid submission, then fails the unit', async () => {
    const w = world({ carry: onPr, run: () => ({ submissions: {} }) });
    expect(await new ReviewRound(w.unit).run()).toBe('failed');
    expect(w.runs).toHaveLength(2);
    expect(w.runs[1].request).toContain('Your previous submission was invalid');
    expect(w.log.names()).not.toContain('postReview');
  });

  it('runs a review again when its run failed or left no record, without using the retry for an invalid one', async () => {
    let runs = 0;
    const w = world({
      carry: onPr,
      run: () => {
        runs += 1;
        if (runs === 1) return undefined;
        if (runs === 2) return { outcome: 'failed', endedBy: 'model_unavailable', submissions: {} };
        return runs === 3 ? { submissions: {} } : approve;
      },
    });
    expect(await new ReviewRound(w.unit).run()).toBeUndefined();
    expect(w.runs).toHaveLength(4);
    expect(w.runs[1].request).not.toContain('Your previous submission was invalid');
    expect(w.runs[3].request).toContain('Your previous submission was invalid');
    expect(w.unit.carry.rerunRounds).toEqual([
      { round: 1, reason: 'the review run ended without a record', review: true },
      { round: 1, reason: 'the review run ended failed (model_unavailable)', review: true },
    ]);
    expect(w.log.names()).toContain('postReview');
    const report = await new Settle(w.unit).run('merged');
    expect(report.report).toContain('The review of round 1 ran again: the review run ended without a record.');
  });

  it('fails as before when a lost review run finds the unit out of re-runs', async () => {
    const spent = Array.from({ length: MAX_RERUN_ROUNDS }, () => ({ round: 1, reason: 'lost', review: true }));
    const w = world({ carry: { ...onPr, rerunRounds: spent }, run: () => undefined });
    expect(await new ReviewRound(w.unit).run()).toBe('failed');
    expect(w.runs).toHaveLength(2);
  });

  it('settles without a review when the PR was merged meanwhile', async () => {
    const w = world({ carry: onPr, pull: { merged: true } });
    expect(await new ReviewRound(w.unit).run()).toBe('merged');
    expect(w.runs).toEqual([]);
  });
});

describe('ChecksRound', () => {
  const waiting = { phase: 'checks' as const, round: 1, pullRequest: 7, headSha: 'head-1', work: [] };

  it('goes idle on green checks at the first look', async () => {
    const w = world({
      carry: waiting,
      checks: { overall: 'success', checkRuns: [{ name: 'ci', status: 'completed', conclusion: 'success' }] },
    });
    await new ChecksRound(w.unit).run();
    expect(w.unit.carry.checks).toMatchObject({ state: 'success', polls: 1 });
    expect(w.phases).toEqual(['idle']);
    expect(w.clock.waits).toEqual([]);
  });

  it('counts "no checks" as green only after a poll interval', async () => {
    const w = world({ carry: waiting });
    await new ChecksRound(w.unit).run();
    expect(w.clock.waits).toEqual([120_000]);
    expect(w.unit.carry.checks).toMatchObject({ state: 'success', polls: 2 });
  });

  it('turns failing checks into work for a coding round', async () => {
    const w = world({
      carry: waiting,
      checks: { overall: 'failure', checkRuns: [{ name: 'ci', status: 'completed', conclusion: 'failure' }] },
    });
    await new ChecksRound(w.unit).run();
    expect(w.unit.carry.work).toEqual([{ kind: 'checks', detail: 'Failing on head-1: ci: failure' }]);
    expect(w.phases).toEqual(['coding']);
  });

  it('stops waiting when a steer arrives during the poll wait', async () => {
    const w = world({
      carry: waiting,
      checks: { overall: 'pending', checkRuns: [{ name: 'ci', status: 'in_progress', conclusion: null }] },
    });
    w.clock.duringWait = () => w.unit.inbox.steer({ text: 'also the changelog' });
    expect(await new ChecksRound(w.unit).run()).toBeUndefined();
    expect(w.log.names()).toEqual(['githubCommitChecks']);
    expect(w.phases).toEqual([]);
  });
});

describe('IdleRound', () => {
  const ready = {
    phase: 'idle' as const,
    round: 1,
    pullRequest: 7,
    headSha: 'head-1',
    checks: { state: 'success' as const, headSha: 'head-1', polls: 1 },
    lastReview: {
      verdict: 'approve' as const,
      commitSha: 'head-1',
      counts: { blocking: 0, major: 0, minor: 0, nit: 0 },
      addressed: 0,
      posted: 'confirmed' as const,
    },
  };

  it('tells the thread and the plan, reminds on the alarm, and expires at the end of the window', async () => {
    const w = world({ carry: ready });
    expect(await new IdleRound(w.unit).run()).toBe('idle_expired');
    const replies = w.log.inputs<{ effectKey: string }>('deliverReply').map((reply) => reply.effectKey);
    expect(replies).toEqual([`${UNIT}/ready/head-1`, `${UNIT}/reminder/1`, `${UNIT}/reminder/2`, `${UNIT}/reminder/3`]);
    expect(w.clock.waits).toEqual([48 * 60 * MINUTE, 48 * 60 * MINUTE, 48 * 60 * MINUTE, 24 * 60 * MINUTE]);
    expect(w.plan).toEqual([{ status: 'ready' }]);
  });

  it('never says ready when its own review of the head asks for changes, whatever the checks say (issue 32)', async () => {
    const asked = { ...ready.lastReview, verdict: 'request_changes' as const, addressed: 1 };
    const w = world({ carry: { ...ready, lastReview: asked } });
    expect(await new IdleRound(w.unit).run()).toBe('idle_expired');
    const [first] = w.log.inputs<{ effectKey: string; text: string }>('deliverReply');
    expect(first).toMatchObject({ effectKey: `${UNIT}/not-ready/head-1` });
    expect(first.text).toMatch(
      /^PR #7 on acme\/app is not ready: its review of head-1 asks for changes \(1 finding at or above the gate\)/,
    );
    expect(w.log.inputs<{ text: string }>('deliverReply').some((reply) => /is ready/.test(reply.text))).toBe(false);
    expect(w.plan).toEqual([]);
    // An approval of an older head is not an approval of this one.
    const older = world({ carry: { ...ready, lastReview: { ...ready.lastReview, commitSha: 'head-0' } } });
    await new IdleRound(older.unit).run();
    expect(older.log.inputs<{ text: string }>('deliverReply')[0].text).toContain('its last review looked at head-0, not the head head-1');
  });

  it("merges at the reviewed head on the plan's merge, and reports a refusal back to the plan", async () => {
    const merged = world({ carry: ready });
    merged.clock.duringWait = () => merged.unit.inbox.requestMerge();
    expect(await new IdleRound(merged.unit).run()).toBe('merged');
    expect(merged.log.inputs('mergePullRequest')[0]).toMatchObject({ expectedHeadSha: 'head-1', effectKey: `${UNIT}/merge/head-1` });

    // Refused: the round ends without an outcome (the workflow idles again) and the plan hears why.
    const refused = world({ carry: ready, write: { status: 'refused', reason: 'not mergeable' } });
    refused.clock.duringWait = () => refused.unit.inbox.requestMerge();
    expect(await new IdleRound(refused.unit).run()).toBeUndefined();
    expect(refused.unit.inbox.mergeRequested).toBe(false);
    expect(refused.plan).toEqual([{ status: 'ready' }, { status: 'merge_refused', reason: 'not mergeable' }]);
  });

  it('never merges a head that is not ready: a merge asked for earlier is refused back to the plan', async () => {
    const asked = { ...ready.lastReview, verdict: 'request_changes' as const, addressed: 1 };
    const w = world({ carry: { ...ready, lastReview: asked } });
    let asks = 0;
    w.clock.duringWait = () => {
      if (asks++ === 0) w.unit.inbox.requestMerge();
    };
    expect(await new IdleRound(w.unit).run()).toBe('idle_expired');
    expect(w.log.inputs('mergePullRequest')).toEqual([]);
    expect(w.unit.inbox.mergeRequested).toBe(false);
    expect(w.plan).toEqual([
      { status: 'merge_refused', reason: expect.stringMatching(/^not ready: its review of head-1 asks for changes/) },
    ]);
  });
});

describe('Settle', () => {
  it('reports to the thread and the PR, releases both workspaces and tells the plan', async () => {
    const w = world({ carry: { phase: 'idle', round: 2, reviews: 2, pullRequest: 7 } });
    w.unit.endedBy = 'the pull request was merged';
    const record = await new Settle(w.unit).run('merged');
    expect(record).toMatchObject({ unitId: UNIT, outcome: 'merged', rounds: 2, reviews: 2, pullRequest: 7 });
    expect(w.log.names()).toEqual(['deliverReply', 'postComment', 'releaseWorkspace', 'releaseWorkspace']);
    expect(w.log.inputs('releaseWorkspace')).toEqual([
      { workspace: { key: UNIT, network: true } },
      { workspace: { key: `${UNIT}/review`, network: true } },
    ]);
    expect(w.phases).toEqual(['settle']);
    expect(w.plan).toEqual([{ status: 'settled', outcome: 'merged' }]);
  });

  it("reports once when its conversation is its PR's own (issue 32)", async () => {
    const w = world({ carry: { phase: 'idle', round: 1, reviews: 1, pullRequest: 7 } });
    Object.assign(w.unit.input, { replyTarget: { kind: 'github', repo: 'Acme/App', pullRequest: 7 } });
    await new Settle(w.unit).run('stopped');
    expect(w.log.names()).toEqual(['deliverReply', 'releaseWorkspace', 'releaseWorkspace']);
    expect(w.log.inputs('deliverReply')[0]).toMatchObject({ effectKey: `${UNIT}/report` });
  });

  it("waits for its plan's last update to land before the unit completes", async () => {
    const w = world({ carry: { phase: 'idle', round: 1, pullRequest: 7 }, inPlan: true });
    let completed = false;
    const settling = new Settle(w.unit).run('merged').then(() => (completed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(w.plan.at(-1)).toEqual({ status: 'settled', outcome: 'merged' });
    expect(completed).toBe(false);
    w.land();
    await settling;
    expect(completed).toBe(true);
  });
});

describe('the state unit_inspect reads', () => {
  it('holds every field its description names: phase, PR, head commit, review rounds, checks, open findings, questions and budget spent', () => {
    const w = world({
      carry: {
        phase: 'findings',
        round: 2,
        pullRequest: 7,
        headSha: 'abc123',
        runMinutes: 12.34,
        checks: { state: 'failure', headSha: 'abc123', polls: 3 },
        work: [{ kind: 'findings', source: 'review', findings: [finding as never] }],
        findings: [
          { id: 'F1', source: 'review', title: 'T', state: 'open' },
          {
            id: 'F2',
            source: 'human',
            title: 'Q',
            state: 'question',
            disposition: { finding: 'F2', disposition: 'question', text: 'Which?', round: 2 },
          },
        ],
      },
    });
    const state = w.unit.state();
    expect(state.openFindings?.shown.map((f) => f.id)).toEqual([undefined, 'F1']);
    const promised: Array<[string, keyof typeof state]> = [
      ['phase', 'phase'],
      ['PR', 'pullRequest'],
      ['head commit', 'headSha'],
      ['review rounds', 'round'],
      ['checks', 'checks'],
      ['open findings (with their ids)', 'openFindings'],
      ['questions waiting for a person', 'questions'],
      ['budget spent', 'budget'],
    ];
    for (const [words, field] of promised) {
      expect(unitInspectTool.description).toContain(words);
      expect(state[field]).toBeDefined();
    }
    expect(state.openFindings).toEqual({
      count: 2,
      shown: [
        { severity: 'major', path: 'README.md', line: 1, title: 'No greeting' },
        { id: 'F1', title: 'T' },
      ],
    });
    expect(state.budget).toEqual({ spentMinutes: 12.3, minutes: 120 });
  });
});
