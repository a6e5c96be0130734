import type { UnitOutcome } from '../contracts';
import { codingRequest, fixesIssue, workspaceNotice } from './unit-prompts';
import type { Unit } from './unit';
import { lostRoundOr, lostWork, rerunRound, roundsUsed } from './lost-work';
import { hostGone, loseRound, rememberHost } from './unit-hosts';
import { dispositionsOf } from './findings-ledger';
import { FindingReplies } from './finding-replies';
import { handOff, handoffOf, resumeNote } from './handoff';

/** The `patched()` id of an exact-PR unit's coding rounds working on the PR's head branch (docs/versioning.md). */
export const EXACT_PR_BRANCH = 'exact-pr-unit-pushes-to-the-pr-branch';
/** A round that only asked questions (and pushed nothing) waits for the answers in idle, not for another review of the same head. */
export const WAITS_FOR_ANSWERS = 'unit-waits-for-its-answers';

/** A round that ended early, with what the unit does next (an outcome ends it; undefined goes on). */
class End {
  constructor(readonly outcome: UnitOutcome | undefined | Promise<UnitOutcome | undefined>) {}
}

/** The checkout a round works in, and whether it works on a person's own PR. */
interface Checkout {
  ws: Awaited<ReturnType<Unit['activities']['workspace']['prepareUnitWorkspace']>>;
  host: string | undefined;
  onPersonsPr: boolean;
  expectedRemoteSha: string | undefined;
}

/** What the coding run left: its record, and its handoff if it handed off. */
interface Ran {
  record: NonNullable<Awaited<ReturnType<Unit['runChild']>>>;
  answering: boolean;
  handoff: ReturnType<typeof handoffOf>;
}

type Commit = Awaited<ReturnType<Unit['activities']['workspace']['commitWorkspace']>>;

/**
 * A coding round: the change (or the fixes) made by a coding run on the unit's branch,
 * committed, pushed, and the PR opened or updated. Out of rounds or budget ends the unit.
 */
export class CodingRound {
  constructor(private readonly unit: Unit) {}

  async run(): Promise<UnitOutcome | undefined> {
    const { unit } = this;
    const { carry: c, settings } = unit;
    if (roundsUsed(unit) >= settings.ship.maxRounds + 1) return 'out_of_rounds';
    if (c.runMinutes >= settings.budgetMinutes) return 'budget';
    // Under a daily spend cap the round is reserved before anything of it is spent.
    const unfunded = await unit.spend?.fundRound();
    if (unfunded) return unit.endWith('spend', unfunded);
    const checkout = await this.checkout();
    if (checkout instanceof End) return checkout.outcome;
    const ran = await this.code(checkout);
    if (ran instanceof End) return ran.outcome;
    const commit = await this.land(checkout, ran);
    if (commit instanceof End) return commit.outcome;
    return this.publish(checkout, ran, commit);
  }

  /** The PR's branch (on a person's PR) and the unit's checkout of it; may the unit push there? */
  private async checkout(): Promise<Checkout | End> {
    const { unit } = this;
    const { carry: c, settings, activities, unitId, repo, input } = unit;
    const { ship } = settings;
    // An exact-PR unit (`unit:<repo>#<n>`) works on the PR's own branch, never a fork of it.
    const onPersonsPr = Boolean(input.pullRequest && c.pullRequest === input.pullRequest && unit.ports.patched(EXACT_PR_BRANCH));
    let expectedRemoteSha: string | undefined;
    if (onPersonsPr) {
      const pr = await activities.github.githubPullGet({ repo, number: c.pullRequest!, identity: 'read', includeDiff: false });
      if (pr.merged) return new End('merged');
      if (pr.state === 'closed') return new End('closed');
      if (pr.headRepo?.toLowerCase() !== repo.toLowerCase())
        return new End(
          unit.failWith(
            `pull request #${c.pullRequest}'s branch ${pr.headRef} is in ${pr.headRepo ?? 'a deleted fork'}, not ${repo}; ` +
              `Switchboard pushes only to branches of ${repo}, so it made no change (open the PR from a branch of ${repo}, or ask for a new PR)`,
          ),
        );
      c.branch = pr.headRef;
      c.base = pr.baseRef;
      expectedRemoteSha = pr.headSha;
    }
    const ws = await activities.workspace.prepareUnitWorkspace({
      workspaceKey: unitId,
      repo,
      branch: c.branch,
      identity: 'write',
      ...((c.base ?? ship.baseBranch) ? { base: c.base ?? ship.baseBranch } : {}),
      machine: settings.coding.profile.machine,
    });
    c.base = ws.base;
    const host = rememberHost(unit, unitId, ws);
    if (onPersonsPr) {
      // Before any work: may the write identity push to the PR's branch (access, protection)?
      const probe = await (host ? activities.onHost!(host).github : activities.github).pushBranch({
        repo,
        identity: 'write',
        workspaceKey: unitId,
        branch: c.branch,
        pullRequest: c.pullRequest,
        effectKey: `${unitId}/push-check/${c.round + 1}`,
        expectedRemoteSha: ws.headSha,
        dryRun: true,
      });
      if (probe.status !== 'confirmed')
        return new End(
          unit.failWith(
            `Switchboard may not push to ${c.branch}, the branch of pull request #${c.pullRequest} (${probe.reason ?? probe.code ?? probe.status}); it made no change`,
          ),
        );
    }
    return { ws, host, onPersonsPr, expectedRemoteSha };
  }

  /** The coding run, asked to make the change or answer the open findings; a lost or cut run reruns the round. */
  private async code({ ws, host }: Checkout): Promise<Ran | End> {
    const { unit } = this;
    const { carry: c, settings, unitId, repo } = unit;
    // The round answers the open findings by id (issue 33), and goes on from a handoff a person answered.
    const answering = unit.answersFindings();
    if (answering && c.handoff) {
      c.work.unshift({ kind: 'steer', text: resumeNote(c.handoff), by: 'Switchboard' });
      delete c.handoff;
    }
    // A person's message while questions wait may be their answer: the round answers those findings again in its light.
    if (answering && c.work.some((item) => item.kind === 'steer' && item.by !== 'Switchboard'))
      unit.findings.reopenQuestions('A person wrote since you asked (their message is above); answer in its light, or ask again.');
    const tracked = answering ? unit.findings.open() : [];
    const request =
      codingRequest(
        { repo, branch: c.branch, base: c.base, round: c.round + 1, ...(c.pullRequest ? { pullRequest: c.pullRequest } : {}) },
        c.work,
        tracked,
      ) + workspaceNotice(ws);
    const record = await unit.runChild('coding', settings.coding, request, unitId, host, undefined, {
      ...(tracked.length ? { findings: unit.findings.refs() } : {}),
    });
    c.round += 1;
    if (unit.inbox.stopped || unit.inbox.terminal) return new End(undefined);
    // A run that handed off said what it could not finish: its round is not lost work.
    const handoff = answering ? handoffOf(record?.submissions.submit_handoff) : undefined;
    // A run that failed or was cut lost its round's work: the round runs again (a few times a unit).
    if (!handoff && (!record || record.outcome !== 'completed'))
      return new End(
        lostRoundOr(
          unit,
          lostWork(record),
          `the coding run ended ${record?.outcome ?? 'without a record'}${record?.endedBy ? ` (${record.endedBy})` : ''}`,
        ),
      );
    // The run lost the checkout with its host (it was told, and worked on elsewhere): the round's changes are gone.
    if (!record) return new End(unit.failWith('the coding run ended without a record'));
    if (host && (record.workspaceLosses ?? 0) > 0) return new End(loseRound(unit, unitId));
    return { record, answering, handoff };
  }

  /** The round's change committed and pushed (a host lost on the way costs the round). */
  private async land({ ws, host, onPersonsPr, expectedRemoteSha }: Checkout, { record, handoff }: Ran): Promise<Commit | End> {
    const { unit } = this;
    const { carry: c, activities, unitId, repo } = unit;
    const onHost = host ? activities.onHost!(host) : undefined;
    let commit;
    try {
      commit = await (onHost?.unitWorkspace ?? activities.workspace).commitWorkspace({
        workspaceKey: unitId,
        message: `switchboard: round ${c.round}`,
        since: ws.headSha,
      });
    } catch (error) {
      if (host && hostGone(error)) return new End(loseRound(unit, unitId));
      throw error;
    }
    // A round lost after its push landed (its host gone at the push's answer): the branch already
    // holds the unit's work, so the PR is opened from it rather than the unit failing for no change.
    const pushedBefore = !commit.changed && !c.pullRequest && Boolean(ws.baseSha) && ws.headSha !== ws.baseSha;
    if (!commit.changed && !pushedBefore) {
      // No change because a command was lost with its worker: the round runs again, never fails the unit.
      const lost = handoff ? undefined : lostWork(record);
      if (lost && rerunRound(unit, lost)) return new End(undefined);
      if (!c.pullRequest) return new End(handoff ? handOff(unit, handoff) : unit.failWith('the coding run made no change'));
    }
    if (pushedBefore) c.headSha = commit.headSha;
    if (commit.changed) {
      let push;
      try {
        push = await (onHost?.github ?? activities.github).pushBranch({
          repo,
          identity: 'write',
          workspaceKey: unitId,
          branch: c.branch,
          effectKey: `${unitId}/push/${c.round}`,
          // On a person's PR: only on top of the head this round started from, never over their newer commits;
          // the door takes the PR's branch (which this unit was admitted to) for fast-forwards only.
          ...(onPersonsPr ? { expectedRemoteSha: expectedRemoteSha ?? ws.headSha, pullRequest: c.pullRequest } : {}),
        });
      } catch (error) {
        if (host && hostGone(error)) return new End(loseRound(unit, unitId));
        throw error;
      }
      if (push.status !== 'confirmed')
        return new End(
          unit.failWith(
            onPersonsPr
              ? `the push to ${c.branch}, the branch of pull request #${c.pullRequest}, was ${push.status}: ${push.reason ?? push.code ?? ''}`
              : `the push was ${push.status}: ${push.reason ?? push.code ?? ''}`,
          ),
        );
      c.headSha = commit.headSha;
    }
    return commit;
  }

  /** The PR opened or updated, each finding answered on its thread, and the phase the unit goes to. */
  private async publish({ onPersonsPr }: Checkout, { record, answering, handoff }: Ran, commit: Commit): Promise<UnitOutcome | undefined> {
    const { unit } = this;
    const { carry: c, activities, unitId, repo, input } = unit;
    // The work is done once it is pushed (a checkout lost before that keeps it for the next round).
    c.work = [];
    const description = record.submissions.submit_description as { title?: string; body?: string } | undefined;
    // A person's PR keeps its title and description; the unit's own PR takes the run's.
    if (!c.pullRequest || (description && !onPersonsPr)) {
      const pr = await activities.githubWrites.openOrUpdatePullRequest({
        repo,
        identity: 'write',
        head: c.branch,
        base: c.base!, // set from the checkout (`ws.base`) at the start of the round
        effectKey: `${unitId}/pr/${c.pullRequest ? c.round : 'open'}`,
        title: description?.title ?? firstLine(input.request ?? `Switchboard change ${unitId}`),
        body: fixesIssue(description?.body ?? `${input.request ?? ''}\n\nOpened by Switchboard unit ${unitId}.`, input.issue),
      });
      if (pr.status !== 'confirmed') return unit.failWith(`opening the pull request was ${pr.status}${pr.reason ? `: ${pr.reason}` : ''}`);
      if (!c.pullRequest && pr.number) {
        c.pullRequest = pr.number;
        unit.ports.openedPullRequest(pr.number);
      }
    }
    if (answering && c.pullRequest) {
      // Each answer in its finding's thread, once the commit it names is pushed.
      const answered = unit.findings.answer(dispositionsOf(record.submissions.submit_dispositions), c.round);
      await new FindingReplies(unit).answers(answered, commit.changed ? c.headSha : undefined);
    }
    if (handoff) return handOff(unit, handoff);
    if (answering && !commit.changed && unit.findings.questions().length > 0 && unit.ports.patched(WAITS_FOR_ANSWERS)) {
      unit.enter('idle');
      return undefined;
    }
    unit.enter('review');
    return undefined;
  }
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > 100 ? `${line.slice(0, 97)}...` : line;
}
