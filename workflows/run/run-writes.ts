import type { GitHubWriteActivities, StatusActivities } from '../activity-proxies';
import type { RunInput } from '../contracts';
import { UncertainWrites } from '../effects/uncertain-writes';
import type { WorkflowClock } from './run-control';
import type { RunState } from './run-state';
import { StatusCard } from './status-card';

/** The `patched()` id of a run that lists its own unconfirmed writes and repairs an unconfirmed status card (docs/versioning.md). */
export const RUN_LISTS_UNCERTAIN_WRITES = 'run-lists-uncertain-writes';

export interface RunWritesDeps {
  runId: string;
  input: RunInput;
  state: RunState;
  clock: WorkflowClock;
  proxies: { githubWrites: GitHubWriteActivities; status: Pick<StatusActivities, 'deliverReply' | 'statusCard'> };
  /** `patched` from the SDK (a fake in unit tests). */
  patched: (id: string) => boolean;
  /** `CancellationScope.nonCancellable`: the card's last update and a write's notice go out even when the run is being stopped. */
  nonCancellable: <T>(work: () => Promise<T>) => Promise<T>;
  /** Called whenever the card's state changed (the Web UI's current details follow it). */
  onChange: () => void;
}

/**
 * The run's at-most-once writes other than its children's: its tools' issues, comments and
 * reviews, and its status card. Those that end unconfirmed (the card's only when its last update
 * does) are listed with their text, said in the conversation, and handed to the thread or unit in
 * the record, where `switchboard resend` repairs them. Runs recorded before this listed nothing
 * and kept one card key: the marker is asked first, before anything is made.
 */
export class RunWrites {
  readonly listsUncertain: boolean;
  readonly uncertain: UncertainWrites;
  /** The GitHub writes the run's tools make. */
  readonly github: GitHubWriteActivities;
  readonly card: StatusCard;

  constructor(deps: RunWritesDeps) {
    const { runId, input, state, clock, proxies, nonCancellable } = deps;
    this.listsUncertain = deps.patched(RUN_LISTS_UNCERTAIN_WRITES);
    this.uncertain = new UncertainWrites(
      state.uncertain,
      { githubWrites: proxies.githubWrites, status: proxies.status },
      {
        now: clock.now,
        workflowId: listingWorkflow(runId, input),
        notify: async (write, text) => {
          await nonCancellable(() =>
            proxies.status.deliverReply({ effectKey: `${write.effectKey}/notice`, replyTarget: input.replyTarget, text }),
          );
        },
      },
    );
    this.github = runGitHubWrites(this.listsUncertain, this.uncertain, proxies.githubWrites);
    this.card = new StatusCard({
      repairs: this.listsUncertain,
      lost: (call, result) => this.uncertain.note({ activity: 'statusCard', input: call }, result),
      runId,
      replyTarget: input.replyTarget,
      state,
      status: proxies.status,
      clock,
      nonCancellable,
      onChange: deps.onChange,
    });
  }
}

/**
 * The GitHub writes the run's tools make: the at-most-once ones through the list (`listsUncertain`);
 * runs recorded before listed nothing and called the activities themselves.
 */
export function runGitHubWrites(
  listsUncertain: boolean,
  uncertain: UncertainWrites,
  githubWrites: GitHubWriteActivities,
): GitHubWriteActivities {
  const recorded = uncertain.recording().githubWrites;
  if (!listsUncertain) return githubWrites;
  return {
    postComment: recorded.postComment,
    postReview: recorded.postReview,
    openOrUpdatePullRequest: recorded.openOrUpdatePullRequest,
    createIssue: recorded.createIssue,
    replyToReviewComment: recorded.replyToReviewComment,
    resolveReviewThread: (resolve) => githubWrites.resolveReviewThread(resolve),
    updateIssue: (update) => githubWrites.updateIssue(update),
    mergePullRequest: (merge) => githubWrites.mergePullRequest(merge),
  };
}

/**
 * Where a run's unconfirmed writes end up listed (and are resent): a unit's run in its unit, any
 * other run in its thread (a task child's go through its parent).
 */
export function listingWorkflow(runId: string, input: Pick<RunInput, 'threadId'>): string {
  const unit = /^(unit:[^/]+\/[^/]+)\//.exec(runId);
  return unit ? unit[1] : input.threadId;
}
