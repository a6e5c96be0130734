import { failure } from '../../workflows/contracts';
import { parseFields, type WorkspaceGit } from '../sandbox/workspace-git';
import { PUSH_SCRIPT, REMOTE_SHA_SCRIPT } from '../units/git-scripts';
import { type GitHubIdentities } from './identity';
import type { EffectResult, PushBranchInput } from '../../workflows/contracts/github';

export { unitBranchName } from '../../workflows/unit/branch';

/**
 * Pushing a branch with `--force-with-lease` (repeatable), or only asking whether a push would
 * be accepted. Git runs in the workspace's sandbox, where the checkout is; the identity's token
 * is added by the workspace's door, which lets a write identity push to `input.repo` only.
 */
export function createPushBranch(identities: GitHubIdentities, workspaceGit: () => WorkspaceGit | undefined) {
  return {
    async pushBranch(input: PushBranchInput): Promise<EffectResult> {
      const identity = input.identity ?? 'write';
      const key = input.effectKey;
      const git = workspaceGit();
      const name = git?.nameOf(
        input.workspaceKey ? { workspaceKey: input.workspaceKey } : { workingDirectory: input.workingDirectory ?? '' },
      );
      if (!git || !name) throw failure('invalid_push', 'nothing to push: the push names no workspace of this worker');
      if (!(await identities.tokenFor(identity)))
        return { status: 'refused', effectKey: key, code: 'forbidden', reason: `no GitHub credential for the '${identity}' identity` };
      const remote = identities.gitRemote(input.repo);
      const ref = `refs/heads/${input.branch}`;
      // The door lets this step update the one branch it names: the caller's own, or the pull request's it was admitted to.
      const refs = input.pullRequest
        ? { own: [], pullRequest: { number: input.pullRequest, head: input.branch } }
        : { own: [input.branch] };
      const grant = { identity, repo: input.repo, refs };
      const ran = await git.script(
        name,
        PUSH_SCRIPT,
        [remote, ref, input.sourceRef ?? 'HEAD', input.expectedRemoteSha ?? '-', input.dryRun ? '1' : '0'],
        grant,
      );
      if (ran.code === 3) throw failure('invalid_push', `nothing to push: ${input.sourceRef ?? 'HEAD'} is not a commit in the workspace`);
      if (ran.code === 4) return gitFailure(key, identity, ran.stderr);
      if (ran.code === 5) return { status: 'refused', effectKey: key, code: 'not_found', reason: lastLine(ran.stderr) };
      if (ran.code !== 0) throw failure('git_push_failed', `git push did not complete: ${lastLine(ran.stderr)}`, { retryable: true });
      const fields = parseFields(ran.stdout);
      const sha = fields.sha ?? '';
      if (fields.pushed === '1') return { status: 'confirmed', effectKey: key, sha };
      const output = `${ran.stdout}\n${ran.stderr}`;
      // The door refused a ref of the push (the rule in its words): not a lease lost to someone else.
      const door = /Switchboard refused: (.*)$/m.exec(output);
      if (door)
        return {
          status: 'refused',
          effectKey: key,
          code: 'forbidden',
          reason: `Switchboard refused the push: ${door[1].replace(/\)\s*$/, '').trim()}`,
          sha,
        };
      if (/stale info|\[rejected\]|failed to push/i.test(output) && !/returned error: 40[13]/.test(output)) {
        // A retry of a push that already landed sees its own commit there: that is success.
        const now = await git.script(name, REMOTE_SHA_SCRIPT, [remote, ref], grant);
        if (now.code === 0 && parseFields(now.stdout).remote === sha) return { status: 'confirmed', effectKey: key, sha };
        return {
          status: 'refused',
          effectKey: key,
          code: 'stale_lease',
          reason: `${input.branch} is not where this push expected it (${fields.expected || 'absent'}); someone else pushed`,
          sha,
        };
      }
      return gitFailure(key, identity, output);
    },
  };
}

function gitFailure(effectKey: string, identity: string, output: string): EffectResult {
  if (
    /returned error: 40[13]|Authentication failed|Permission .* denied|not allowed|refused this request|may not push|never push/i.test(
      output,
    )
  ) {
    return {
      status: 'refused',
      effectKey,
      code: 'forbidden',
      reason: `GitHub refused the push with this run's '${identity}' identity: ${lastLine(output)}`,
    };
  }
  if (/returned error: 404|not found/i.test(output)) return { status: 'refused', effectKey, code: 'not_found', reason: lastLine(output) };
  // Network trouble or a 5xx: repeatable, so Temporal simply retries.
  throw failure('git_push_failed', `git push did not complete: ${lastLine(output)}`, { retryable: true });
}

function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).pop() ?? 'no output';
}
