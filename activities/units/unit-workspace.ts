import { failure } from '../../workflows/contracts';
import { currentCallContext, withHeartbeat } from '../models/activity-context';
import { type GitHubIdentities } from '../github/identity';
import { ACTIVITY_HEARTBEAT_MS } from '../heartbeating';
import { type RepoCache } from '../sandbox/repo-cache/repo-cache';
import { parseFields, type WorkspaceGit } from '../sandbox/workspace-git';
import { workspaceName } from '../sandbox/workspace-layout';
import { CHECKOUT_SCRIPT, COMMIT_SCRIPT } from './git-scripts';
import type {
  CommitResult,
  CommitWorkspaceInput,
  PrepareUnitWorkspaceInput,
  UnitWorkspace,
} from '../../workflows/contracts/unit-workspace';

/**
 * The unit's checkout inside the sandbox workspace of its runs, made and committed by git
 * running in that sandbox as its user (never by the worker on the tree the sandbox wrote):
 * cloned once through the workspace's door (which adds the identity's token on the worker's
 * side), then fetched and switched for each round. Repeatable whatever a killed attempt left:
 * the checkout script verifies and repairs the git directory and remote, removes stale lock
 * files, and the switch is a hard reset. Every call heartbeats while git runs, so an attempt
 * lost with its worker is retried within seconds.
 */
export function createUnitWorkspaceActivities(deps: {
  git: WorkspaceGit;
  identities: Pick<GitHubIdentities, 'tokenFor' | 'gitRemote'>;
  /** This host's own task queue (infra/host-queue.ts), returned with the checkout. */
  hostTaskQueue?: string;
  /** This host's repository caches (none: every checkout fetches everything itself). */
  repoCache?: RepoCache;
}) {
  const call = () => currentCallContext();

  return {
    async prepareUnitWorkspace(input: PrepareUnitWorkspaceInput): Promise<UnitWorkspace> {
      return withHeartbeat(call(), ACTIVITY_HEARTBEAT_MS, async () => {
        if (!(await deps.identities.tokenFor(input.identity)))
          throw failure('github_no_credential', `no GitHub credential for the '${input.identity}' identity`);
        const name = workspaceName(input.workspaceKey);
        await deps.git.recordKey(input.workspaceKey);
        const remote = deps.identities.gitRemote(input.repo);
        // Resident work borrows from the host's cache of the repository (fetched with the read identity); cold work never does.
        const resident = input.machine === 'repo-resident' && (await deps.identities.tokenFor('read'));
        // Untrusted until this checkout proves otherwise: nothing of an earlier one carries over.
        await deps.repoCache?.noteCheckout(name, false);
        const cache = resident
          ? await deps.repoCache?.forCheckout({ repo: input.repo, workspace: name, remote })
          : await deps.repoCache?.detach(name);
        const ran = await deps.git.script(
          name,
          CHECKOUT_SCRIPT,
          [remote, input.branch, input.base ?? '', input.checkoutSha ?? '', cache?.objects ?? '', cache?.tips ?? ''],
          { identity: input.identity, repo: input.repo },
        );
        if (ran.code !== 0) throw gitFailed('checkout', ran);
        const fields = parseFields(ran.stdout);
        let notice = cache?.notice;
        if (fields.cacheFallback !== undefined) {
          notice = `This checkout could not use the repository cache of ${input.repo} on its worker host (${fields.cacheFallback || 'git failed'}), so it fetched everything directly.`;
          deps.repoCache?.checkoutFellBack(input.repo, notice);
        }
        if (!/^[0-9a-f]{40}$/.test(fields.head ?? ''))
          throw gitFailed('checkout', { code: 0, stderr: `no commit checked out (${ran.stdout.trim().slice(-200)})` });
        // A branch of the repository for the write identity is code only its writers pushed; a pinned
        // head (a pull request under review, perhaps from a fork) is anyone's: its setup is never kept.
        if (resident && input.identity === 'write' && !input.checkoutSha) await deps.repoCache?.noteCheckout(name, true);
        return {
          path: fields.work || '/workspace',
          headSha: fields.head,
          base: fields.base || input.base || 'main',
          ...(/^[0-9a-f]{40}$/.test(fields.baseSha ?? '') ? { baseSha: fields.baseSha } : {}),
          ...(deps.hostTaskQueue ? { hostTaskQueue: deps.hostTaskQueue } : {}),
          ...(cache ? { cached: fields.cache === '1' } : {}),
          ...(/^\d+$/.test(fields.objects ?? '') ? { localObjects: Number(fields.objects) } : {}),
          ...(notice ? { cacheNotice: notice } : {}),
        };
      });
    },

    async commitWorkspace(input: CommitWorkspaceInput): Promise<CommitResult> {
      return withHeartbeat(call(), ACTIVITY_HEARTBEAT_MS, async () => {
        // A commit needs no remote: the door stays shut to git for it (read grant, nothing fetched).
        const ran = await deps.git.script(workspaceName(input.workspaceKey), COMMIT_SCRIPT, [input.message], {
          identity: 'read',
          repo: '',
        });
        if (ran.code !== 0) throw gitFailed('commit', ran);
        const headSha = parseFields(ran.stdout).head ?? '';
        if (!/^[0-9a-f]{40}$/.test(headSha))
          throw gitFailed('commit', { code: 0, stderr: `no commit to report (${ran.stdout.trim().slice(-200)})` });
        return { headSha, changed: headSha !== input.since };
      });
    },
  };
}

function gitFailed(step: string, ran: { code: number; stderr: string; timedOut?: boolean }) {
  const why = ran.timedOut ? 'it did not finish in time' : ran.stderr.trim().slice(-500) || `exit ${ran.code}, no output`;
  return failure('git_failed', `git ${step} failed: ${why}`, { retryable: true });
}
