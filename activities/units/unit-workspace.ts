import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { failure } from '../../workflows/contracts';
import { runGit } from '../github/git-credentials';
import { currentCallContext, withHeartbeat } from '../models/activity-context';
import { type GitHubIdentities } from '../github/identity';
import { ACTIVITY_HEARTBEAT_MS } from '../heartbeating';
import { workspaceLayout } from '../sandbox/workspace-layout';
import { ceiling, ensureCheckout, removeStaleLocks, type GitRunner } from './git-repair';

export interface PrepareUnitWorkspaceInput {
  /** The sandbox workspace key the unit's runs use. */
  workspaceKey: string;
  repo: string;
  /** The unit's branch: checked out (created from `base` when it does not exist yet). */
  branch: string;
  base?: string;
  /** Check out exactly this commit (a review of a PR head) instead of the branch tip. */
  checkoutSha?: string;
  identity: 'read' | 'write';
}

export interface UnitWorkspace {
  /** The checkout on the worker's disk (git operations and pushes run here). */
  path: string;
  headSha: string;
  /** The branch new commits are compared against. */
  base: string;
  /** The base branch's commit on the remote: a checkout whose head differs carries commits pushed by an earlier round. */
  baseSha?: string;
  /** The task queue of the host holding the checkout: its commit, push and release go there (absent on a worker without one). */
  hostTaskQueue?: string;
}

export interface CommitWorkspaceInput {
  workspaceKey: string;
  message: string;
  /** The commit the round started from: tells whether the round changed anything. */
  since: string;
}

export interface CommitResult {
  headSha: string;
  /** The round produced commits (its own or the run's). */
  changed: boolean;
}

const GIT_AUTHOR = ['-c', 'user.name=Switchboard', '-c', 'user.email=switchboard@users.noreply.github.com'];

/**
 * The unit's checkout inside the sandbox workspace of its runs: cloned once with the run's
 * scoped token (through a credential helper, never in a URL), then fetched and switched for
 * each round. Repeatable whatever a killed attempt left: `ensureCheckout` verifies and repairs
 * the git directory and remote, stale lock files are removed, and the switch is a hard reset.
 * Every call heartbeats while git runs, so an attempt lost with its worker is retried within
 * seconds.
 */
export function createUnitWorkspaceActivities(deps: {
  dataDir: string;
  identities: Pick<GitHubIdentities, 'tokenFor' | 'gitRemote'>;
  /** This host's own task queue (infra/host-queue.ts), returned with the checkout. */
  hostTaskQueue?: string;
}) {
  const call = () => currentCallContext();

  return {
    async prepareUnitWorkspace(input: PrepareUnitWorkspaceInput): Promise<UnitWorkspace> {
      return withHeartbeat(call(), ACTIVITY_HEARTBEAT_MS, async () => {
        const layout = workspaceLayout(deps.dataDir, { key: input.workspaceKey, network: true });
        const token = await deps.identities.tokenFor(input.identity);
        if (!token) throw failure('github_no_credential', `no GitHub credential for the '${input.identity}' identity`);
        const remote = deps.identities.gitRemote(input.repo);
        const git = gitIn(layout.work);
        await mkdir(layout.work, { recursive: true });
        await ensureCheckout(layout.work, remote, git);
        await git(['fetch', '-q', '--prune', 'origin', '+refs/heads/*:refs/remotes/origin/*'], layout.work, token);
        const base = input.base ?? (await defaultBranch(layout.work, token));
        const remoteBranch = await runGit(['rev-parse', '--verify', '-q', `refs/remotes/origin/${input.branch}`], {
          cwd: layout.work,
          env: ceiling(layout.work),
        });
        const start = input.checkoutSha ?? (remoteBranch.code === 0 ? `origin/${input.branch}` : `origin/${base}`);
        await git(['checkout', '-q', '-f', '-B', input.branch, start], layout.work);
        await git(['reset', '-q', '--hard', start], layout.work);
        await git(['clean', '-qfdx'], layout.work);
        const baseSha = await runGit(['rev-parse', '--verify', '-q', `refs/remotes/origin/${base}`], {
          cwd: layout.work,
          env: ceiling(layout.work),
        });
        return {
          path: layout.work,
          headSha: await git(['rev-parse', 'HEAD'], layout.work),
          base,
          ...(baseSha.code === 0 && baseSha.stdout.trim() ? { baseSha: baseSha.stdout.trim() } : {}),
          ...(deps.hostTaskQueue ? { hostTaskQueue: deps.hostTaskQueue } : {}),
        };
      });
    },

    async commitWorkspace(input: CommitWorkspaceInput): Promise<CommitResult> {
      return withHeartbeat(call(), ACTIVITY_HEARTBEAT_MS, async () => {
        const layout = workspaceLayout(deps.dataDir, { key: input.workspaceKey, network: true });
        const git = gitIn(layout.work);
        // A commit killed midway leaves index.lock or a ref lock; the commit itself is all or nothing.
        await removeStaleLocks(join(layout.work, '.git'));
        await git(['add', '-A'], layout.work);
        const staged = await runGit(['diff', '--cached', '--quiet'], { cwd: layout.work, env: ceiling(layout.work) });
        if (staged.code !== 0) await git([...GIT_AUTHOR, 'commit', '--no-verify', '-q', '-m', input.message], layout.work);
        const headSha = await git(['rev-parse', 'HEAD'], layout.work);
        return { headSha, changed: headSha !== input.since };
      });
    },
  };

  function gitIn(work: string): GitRunner {
    return async (args, cwd, token) => {
      const outcome = await runGit(args, { cwd, token, timeoutMs: 300_000, env: ceiling(work) });
      if (outcome.code !== 0)
        throw failure('git_failed', `git ${args[0]} failed: ${outcome.stderr.trim().slice(-500)}`, { retryable: true });
      return outcome.stdout.trim();
    };
  }

  async function defaultBranch(cwd: string, token: string): Promise<string> {
    const head = await runGit(['ls-remote', '--symref', 'origin', 'HEAD'], { cwd, token, env: ceiling(cwd) });
    const match = /ref: refs\/heads\/(\S+)\s+HEAD/.exec(head.stdout);
    return match?.[1] ?? 'main';
  }
}
