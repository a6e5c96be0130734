import { DEFAULT_BRANCH_PREFIX, type OwnedRefs } from '../../../workflows/contracts/pushes';
import { isZeroId, type RefUpdate } from './push-request';

/**
 * Which refs a run may write, as the door judges every ref update of a push before anything
 * reaches the git host. A run owns the branch it (or its unit) created under the deployment's
 * prefix (OwnedRefs, said by its workflow), and may update an existing pull request's head branch
 * when it was admitted to work on that pull request; nothing else: not the default branch, not a
 * protected branch, not a tag, not another unit's or person's branch.
 */
export { DEFAULT_BRANCH_PREFIX, type OwnedRefs };

/** The deployment's rules (`github.pushes`), narrowed per repository; they never widen what a run owns. */
export interface PushRules {
  /** Where runs and units make their own branches. */
  branchPrefix: string;
  /** Whether a run or unit admitted to a pull request may push to its head branch. */
  pullRequestHeads: boolean;
  /** Whether a run may rewrite (force-push) its own branch. */
  forceOwnBranch: boolean;
  /** Whether a run may delete its own branch. */
  deleteOwnBranch: boolean;
}

export const DEFAULT_PUSH_RULES: PushRules = {
  branchPrefix: DEFAULT_BRANCH_PREFIX,
  pullRequestHeads: true,
  forceOwnBranch: true,
  deleteOwnBranch: true,
};

/** The switches a repository's settings may turn off (never on past the deployment's). */
export type PushNarrowing = Partial<Pick<PushRules, 'pullRequestHeads' | 'forceOwnBranch' | 'deleteOwnBranch'>>;

/** The deployment's rules with each narrowing applied: a switch stays on only if every layer leaves it on. */
export function narrowPushRules(deployment: PushRules, ...layers: Array<PushNarrowing | undefined>): PushRules {
  const rules = { ...deployment };
  for (const layer of layers) {
    if (layer?.pullRequestHeads === false) rules.pullRequestHeads = false;
    if (layer?.forceOwnBranch === false) rules.forceOwnBranch = false;
    if (layer?.deleteOwnBranch === false) rules.deleteOwnBranch = false;
  }
  return rules;
}

/** What the door does with one ref update. */
export type RefJudgement =
  { allow: true; fastForwardOnly: boolean; pullRequest?: number } | { allow: false; rule: RefRule; reason: string };

/** The rule a refusal cites (said to the model, and logged). */
export type RefRule = 'only-branches' | 'tags' | 'not-owned' | 'outside-prefix' | 'delete' | 'create' | 'pull-request-heads-off';

const HEADS = 'refs/heads/';

/** Where the run may push, for a refusal's sentence. */
export function ownedSummary(owned: OwnedRefs | undefined, rules: PushRules): string {
  const branches = [
    ...(owned?.own ?? []).filter((branch) => branch.startsWith(rules.branchPrefix)).map((branch) => `${HEADS}${branch} (its own)`),
    ...(owned?.pullRequest && rules.pullRequestHeads
      ? [`${HEADS}${owned.pullRequest.head} (pull request #${owned.pullRequest.number}'s, fast-forward only)`]
      : []),
  ];
  return branches.length ? `it may push only to ${branches.join(' and ')}` : 'it owns no branch, so it may not push';
}

/** Judges one update of a push against what the run owns and the rules in force. */
export function judgeRefUpdate(update: RefUpdate, owned: OwnedRefs | undefined, rules: PushRules): RefJudgement {
  const { ref } = update;
  const refuse = (rule: RefRule, reason: string): RefJudgement => ({ allow: false, rule, reason });
  if (ref.startsWith('refs/tags/')) return refuse('tags', `${ref} is a tag: a run never pushes tags`);
  if (!ref.startsWith(HEADS)) return refuse('only-branches', `${ref} is not a branch: a run pushes only branches (${HEADS}…)`);
  const branch = ref.slice(HEADS.length);
  const deleting = isZeroId(update.newId);
  const creating = isZeroId(update.oldId);
  if (owned?.own.includes(branch)) {
    if (!branch.startsWith(rules.branchPrefix))
      return refuse('outside-prefix', `${ref} is not under the deployment's branch prefix ${rules.branchPrefix}, so no run owns it`);
    if (deleting && !rules.deleteOwnBranch)
      return refuse('delete', `${ref} is this run's own branch, and deleting it is turned off for this repository`);
    return { allow: true, fastForwardOnly: !deleting && !creating && !rules.forceOwnBranch };
  }
  if (owned?.pullRequest?.head === branch) {
    if (!rules.pullRequestHeads)
      return refuse(
        'pull-request-heads-off',
        `${ref} is pull request #${owned.pullRequest.number}'s branch, and pushing to pull requests' branches is turned off for this repository`,
      );
    if (deleting)
      return refuse(
        'delete',
        `${ref} is pull request #${owned.pullRequest.number}'s branch, which this run did not create: it may not delete it`,
      );
    if (creating)
      return refuse('create', `${ref}, pull request #${owned.pullRequest.number}'s branch, is not on the git host: a run only updates it`);
    return { allow: true, fastForwardOnly: true, pullRequest: owned.pullRequest.number };
  }
  return refuse(
    deleting ? 'delete' : 'not-owned',
    `${ref} is not a branch this run owns (${deleting ? 'it may delete only a branch it created' : 'the default branch, protected branches and other runs’ and people’s branches are never pushed to'}); ${ownedSummary(owned, rules)}`,
  );
}
