import { isCancellation } from '@temporalio/workflow';
import type { GitHubActivities } from '../../activities/github';
import type { ToolCall, ToolResult } from '../contracts/model';
import type { ToolInput } from '../../tools';
import type { GitHubWriteActivities, SetupActivities, UnitWorkspaceActivities } from '../activity-proxies';
import { DEFAULT_BRANCH_PREFIX, type DirectWorkState, type RunInput } from '../contracts';
import { applyGate, validateSubmission } from '../unit/review-gate';
import { renderReview, reviewComments } from '../unit/review-render';
import { earlierReviewRequest, fixesIssue, reviewRequest, workspaceNotice } from '../unit/unit-prompts';
import { failureMessage, fail, ok } from './executors/tool-result';
import type { RunState } from './run-state';

/** The activities a direct review or coding run calls (the proxies in the workflow; fakes in tests). */
export interface DirectActivities {
  setup: SetupActivities;
  github: Pick<GitHubActivities, 'githubPullGet' | 'pushBranch'>;
  workspace: Pick<UnitWorkspaceActivities, 'prepareUnitWorkspace' | 'commitWorkspace'>;
  githubWrites: Pick<GitHubWriteActivities, 'postReview' | 'openOrUpdatePullRequest'>;
}

/**
 * Whether this run delivers its own `submit_review` / `submit_description`: a run of the
 * review or coding agent started by a person (not a unit's child, not a `task` child).
 */
export function directMode(input: RunInput): DirectWorkState['mode'] | undefined {
  if (input.parent || input.submitsTo === 'unit') return undefined;
  if (input.profile.tools.includes('submit_review')) return 'review';
  // A coding run with no repository works in a scratch workspace, as it always has: it has
  // nothing to push, so its submission is only recorded (and the tool says so).
  const repo = input.profile.repo?.value ?? (input.replyTarget.kind === 'github' ? input.replyTarget.repo : undefined);
  if (input.profile.tools.includes('submit_description') && repo) return 'coding';
  return undefined;
}

/**
 * The branch a direct coding run pushes when it does not work on a PR: one per run, so a push is
 * repeatable, under the deployment's branch prefix (the only place the network door lets it push).
 */
export function directBranchName(runId: string, prefix: string = DEFAULT_BRANCH_PREFIX): string {
  const safe = runId
    .replace(/^run:thread:/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return `${prefix}${safe || 'run'}`;
}

/**
 * A direct review or coding run (`agent:review`, `agent:coding` outside a ship unit): checks
 * out the PR head (review, read identity) or a branch (coding, write identity) in the run's
 * workspace before the first turn; then `submit_review` is validated, gated, head-checked and
 * posted once on the exact commit reviewed, and `submit_description` commits, pushes the branch
 * and opens a draft PR (or pushes to the PR the run was asked from). Plain class: its state
 * lives in the run's carry (`state.direct`), so it survives continue-as-new.
 */
export class DirectWork {
  constructor(
    private readonly deps: {
      runId: string;
      state: RunState;
      workspaceKey: string;
      mode: DirectWorkState['mode'];
      activities: DirectActivities;
    },
  ) {}

  /** Prepares the checkout and tells the model what it holds; a reason in words when it cannot. */
  async prepare(): Promise<string | undefined> {
    const { state, mode, activities, workspaceKey, runId } = this.deps;
    const { input } = state;
    const onPullRequest = input.replyTarget.kind === 'github' ? input.replyTarget : undefined;
    const repo = input.profile.repo?.value ?? onPullRequest?.repo;
    const agent = input.profile.agent;
    if (!repo) return `a direct ${agent} run needs a repository: say it as \`in owner/name: …\``;
    // A plain issue is no pull request: a review names its PR in the request, a change gets a new branch and PR.
    const askedFrom = onPullRequest?.repo === repo && !onPullRequest.issue ? onPullRequest.pullRequest : undefined;
    try {
      const { ship } = await activities.setup.loadAgentSetup();
      if (mode === 'review') {
        const number = askedFrom ?? pullRequestNamed(input.request, repo);
        if (!number) return `a review needs a pull request: name it as \`#<number>\` (or ask from the pull request)`;
        const pr = await activities.github.githubPullGet({ repo, number, identity: 'read', includeDiff: false });
        if (pr.merged || pr.state === 'closed')
          return `${repo}#${number} is ${pr.merged ? 'merged' : 'closed'}; there is nothing to review`;
        const ws = await activities.workspace.prepareUnitWorkspace({
          workspaceKey,
          repo,
          branch: 'switchboard-review',
          base: pr.baseRef,
          checkoutSha: pr.headSha,
          identity: 'read',
          machine: input.profile.machine,
        });
        state.direct = {
          mode,
          repo,
          pullRequest: number,
          headSha: pr.headSha,
          base: pr.baseRef,
          path: ws.path,
          gate: ship.addressSeverity,
        };
        const earlier = this.earlier();
        this.tellModel(
          reviewRequest({ repo, pullRequest: number, headSha: pr.headSha, base: pr.baseRef, gate: ship.addressSeverity }) +
            (earlier ? `\n${earlierReviewRequest(earlier)}` : '') +
            workspaceNotice(ws),
        );
        return undefined;
      }
      let onPr: { number: number; branch: string; base: string } | undefined;
      let note = '';
      if (askedFrom) {
        const pr = await activities.github.githubPullGet({ repo, number: askedFrom, identity: 'read', includeDiff: false });
        if (pr.headRepo?.toLowerCase() === repo.toLowerCase() && pr.state === 'open')
          onPr = { number: askedFrom, branch: pr.headRef, base: pr.baseRef };
        else
          note = `Pull request #${askedFrom}'s branch is ${pr.state === 'open' ? `in ${pr.headRepo ?? 'a deleted fork'}, not ${repo}` : pr.state}, so this change goes to a new branch and a new draft pull request.`;
      }
      const branch = onPr?.branch ?? directBranchName(runId, ship.branchPrefix);
      const ws = await activities.workspace.prepareUnitWorkspace({
        workspaceKey,
        repo,
        branch,
        identity: 'write',
        ...(onPr ? { base: onPr.base } : {}),
        machine: input.profile.machine,
      });
      state.direct = {
        mode,
        repo,
        ...(onPr ? { pullRequest: onPr.number } : {}),
        headSha: ws.headSha,
        branch,
        base: ws.base,
        path: ws.path,
        gate: ship.addressSeverity,
      };
      this.tellModel(
        [
          `Repository ${repo}, checked out in your workspace on branch ${branch} (based on ${ws.base}).`,
          ...(note ? [note] : []),
          'Make the change, verify it, and commit it on the current branch; do not push.',
          onPr
            ? `Then call submit_description once: Switchboard commits what is left and pushes the branch to pull request #${onPr.number}.`
            : 'Then call submit_description once: Switchboard commits what is left, pushes the branch and opens a draft pull request from your title and description.',
        ].join('\n') + workspaceNotice(ws),
      );
      return undefined;
    } catch (error) {
      if (isCancellation(error)) throw error;
      return failureMessage(error);
    }
  }

  /** `submit_review`: the unit's validation and gate, the head check, then one review on the exact commit. */
  async submitReview(call: ToolCall, input: ToolInput<'submit_review'>): Promise<ToolResult> {
    const { state, activities, runId } = this.deps;
    const d = state.direct;
    if (d?.mode !== 'review' || !d.pullRequest)
      return fail(call, 'This run has no pull request checked out to review; nothing was posted.');
    if (d.delivered?.status === 'confirmed')
      return fail(call, `The review of this commit was already posted (${d.delivered.url ?? d.delivered.what}); submit_review posts once.`);
    const earlier = this.earlier();
    const validated = validateSubmission(input, earlier?.findings.length ?? 0);
    if (!validated.ok) return fail(call, `The review is invalid: ${validated.problem}. Nothing was posted.`);
    state.submissions[call.name] = input;
    const { summary } = applyGate(validated.submission, d.gate, d.headSha);
    try {
      const current = await activities.github.githubPullGet({ repo: d.repo, number: d.pullRequest, identity: 'read', includeDiff: false });
      if (current.headSha !== d.headSha) {
        d.delivered = {
          status: 'refused',
          what: `the review of #${d.pullRequest}: its head moved from ${d.headSha.slice(0, 12)} to ${current.headSha.slice(0, 12)} during the review, so nothing was posted`,
        };
        return fail(call, `Not posted: ${d.delivered.what}.`);
      }
      const posted = await activities.githubWrites.postReview({
        repo: d.repo,
        identity: 'write',
        number: d.pullRequest,
        commitSha: d.headSha,
        event: 'COMMENT',
        body: renderReview(validated.submission, summary, d.gate, { next: 'author', ...(earlier ? { earlier } : {}) }),
        comments: reviewComments(validated.submission),
        effectKey: `${state.input.reviewKey ?? runId}/review/${d.headSha}`,
      });
      d.delivered = {
        status: posted.status,
        what: `${summary.verdict === 'approve' ? 'approving ' : 'change-requesting '}review of #${d.pullRequest} on commit ${d.headSha.slice(0, 12)}${posted.reason ? ` (${posted.reason})` : ''}`,
        ...(posted.url ? { url: posted.url } : {}),
        number: d.pullRequest,
        sha: d.headSha,
      };
    } catch (error) {
      if (isCancellation(error)) throw error;
      d.delivered = { status: 'refused', what: `the review of #${d.pullRequest}: ${failureMessage(error)}` };
    }
    const line = deliveryLine(d);
    return d.delivered.status === 'confirmed' ? ok(call, line) : fail(call, line);
  }

  /** `submit_description`: commit what is left, push the branch, open the draft PR (or update the asked-from PR's branch). */
  async submitDescription(call: ToolCall, input: ToolInput<'submit_description'>): Promise<ToolResult> {
    const { state, activities, runId, workspaceKey } = this.deps;
    const d = state.direct;
    if (d?.mode !== 'coding' || !d.branch) return fail(call, 'This run has no branch checked out; nothing was pushed.');
    state.submissions[call.name] = input;
    try {
      const commit = await activities.workspace.commitWorkspace({ workspaceKey, message: input.title, since: d.pushedSha ?? d.headSha });
      if (!commit.changed && !d.pushedSha)
        return fail(
          call,
          `Nothing to deliver: ${d.branch} has no change since ${d.headSha.slice(0, 12)}. Make the change, then call submit_description again.`,
        );
      if (commit.changed) {
        const push = await activities.github.pushBranch({
          repo: d.repo,
          identity: 'write',
          workspaceKey,
          branch: d.branch,
          // Asked from a pull request: its branch, which this run was admitted to (the door takes fast-forwards only).
          ...(d.pullRequest ? { pullRequest: d.pullRequest } : {}),
          effectKey: `${runId}/push/${commit.headSha}`,
          // Never over someone else's commits: the branch must still be where this run left it.
          expectedRemoteSha: d.pushedSha ?? (d.pullRequest ? d.headSha : ''),
        });
        if (push.status !== 'confirmed') {
          d.delivered = { status: push.status, what: `the push of ${d.branch}: ${push.reason ?? push.code ?? push.status}` };
          return fail(call, `Not pushed: ${d.delivered.what}.`);
        }
        d.pushedSha = commit.headSha;
      }
      if (d.pullRequest) {
        d.delivered = {
          status: 'confirmed',
          what: `pushed ${d.pushedSha!.slice(0, 12)} to ${d.branch}, the branch of pull request #${d.pullRequest}`,
          number: d.pullRequest,
          sha: d.pushedSha!,
        };
        return ok(call, `${deliveryLine(d)}.`);
      }
      const checked = input.testing?.length
        ? `${input.body}\n\n**Checks run**\n${input.testing.map((line) => `- ${line}`).join('\n')}`
        : input.body;
      // Asked on a plain issue of the same repository: the PR fixes it.
      const target = state.input.replyTarget;
      const body = fixesIssue(checked, target.kind === 'github' && target.issue && target.repo === d.repo ? target.pullRequest : undefined);
      const pr = await activities.githubWrites.openOrUpdatePullRequest({
        repo: d.repo,
        identity: 'write',
        head: d.branch,
        base: d.base,
        title: input.title,
        body,
        draft: true,
        effectKey: `${runId}/pr`,
      });
      d.delivered = {
        status: pr.status,
        what: pr.number
          ? `draft pull request #${pr.number} from ${d.branch}`
          : `the draft pull request from ${d.branch}${pr.reason ? `: ${pr.reason}` : ''}`,
        ...(pr.url ? { url: pr.url } : {}),
        ...(pr.number ? { number: pr.number } : {}),
        sha: d.pushedSha!,
      };
    } catch (error) {
      if (isCancellation(error)) throw error;
      d.delivered = { status: 'refused', what: `the change on ${d.branch}: ${failureMessage(error)}` };
    }
    const line = deliveryLine(d);
    return d.delivered.status === 'confirmed' ? ok(call, line) : fail(call, line);
  }

  /** The run's answer ends with what it delivered (or that it delivered nothing), in words. */
  answer(finalText: string): string {
    const d = this.deps.state.direct;
    if (!d) return finalText;
    const line = d.delivered
      ? deliveryLine(d)
      : d.mode === 'review'
        ? 'No review was posted: the run did not submit one.'
        : 'Nothing was pushed: the run did not call submit_description.';
    return finalText.trim() ? `${finalText}\n\n${line}` : line;
  }

  /** The conversation's earlier review, when it was of another commit than the one checked out. */
  private earlier() {
    const { state } = this.deps;
    const earlier = state.input.earlierReview;
    const head = state.direct?.headSha;
    return earlier && head && earlier.commitSha !== head ? earlier : undefined;
  }

  /** The checkout's note goes before the request, so the model reads where it works first. */
  private tellModel(note: string): void {
    const { state } = this.deps;
    const at = state.taskLength - 1;
    const request = state.messages[at];
    if (request?.role === 'user') state.messages[at] = { ...request, text: `${note}\n\n${request.text}` };
  }
}

/** `#12` or `owner/name#12` for this repository in the request text. */
export function pullRequestNamed(request: string, repo: string): number | undefined {
  const escaped = repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(?:^|[\\s(])(?:${escaped})?#(\\d+)\\b`, 'i').exec(request);
  return match ? Number(match[1]) : undefined;
}

function deliveryLine(d: DirectWorkState): string {
  const delivered = d.delivered!;
  const where = delivered.url ? `: ${delivered.url}` : '';
  if (delivered.status === 'confirmed') return `Delivered ${delivered.what}${where}`;
  if (delivered.status === 'unconfirmed') return `Unconfirmed: ${delivered.what} may or may not have been written (it is not sent again)`;
  return `Not delivered: ${delivered.what}`;
}
