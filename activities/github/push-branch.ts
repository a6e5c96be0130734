import { failure } from '../../workflows/contracts';
import { type GitHubIdentities } from './identity';
import { runGit } from './git-credentials';
import { type EffectResult, type PushBranchInput } from './types';

export { unitBranchName } from '../../workflows/unit/branch';

/** Pushing a branch with `--force-with-lease` (repeatable), or only asking whether a push would be accepted. */
export function createPushBranch(identities: GitHubIdentities) {
  return {
    async pushBranch(input: PushBranchInput): Promise<EffectResult> {
      const identity = input.identity ?? 'write';
      const key = input.effectKey;
      const token = await identities.tokenFor(identity);
      if (!token)
        return { status: 'refused', effectKey: key, code: 'forbidden', reason: `no GitHub credential for the '${identity}' identity` };
      const remote = identities.gitRemote(input.repo);
      const ref = `refs/heads/${input.branch}`;
      const cwd = input.workingDirectory;
      const local = await runGit(['rev-parse', '--verify', `${input.sourceRef ?? 'HEAD'}^{commit}`], { cwd });
      if (local.code !== 0) {
        throw failure('invalid_push', `nothing to push: ${input.sourceRef ?? 'HEAD'} is not a commit in ${cwd}`);
      }
      const sha = local.stdout.trim();
      const remoteSha = async () => {
        const listed = await runGit(['ls-remote', remote, ref], { cwd, token });
        if (listed.code !== 0) return { failed: listed.stderr };
        return { sha: listed.stdout.split(/\s+/)[0] || '' };
      };
      let expected = input.expectedRemoteSha;
      if (expected === undefined) {
        const current = await remoteSha();
        if ('failed' in current) return gitFailure(key, identity, current.failed ?? '');
        expected = current.sha;
      }
      const dryRun = input.dryRun ? ['--dry-run'] : [];
      const pushed = await runGit(['push', '--porcelain', ...dryRun, `--force-with-lease=${ref}:${expected}`, remote, `${sha}:${ref}`], {
        cwd,
        token,
      });
      if (pushed.code === 0) return { status: 'confirmed', effectKey: key, sha };
      const output = `${pushed.stdout}\n${pushed.stderr}`;
      if (/stale info|\[rejected\]|failed to push/i.test(output) && !/returned error: 40[13]/.test(output)) {
        // A retry of a push that already landed sees its own commit there: that is success.
        const now = await remoteSha();
        if ('sha' in now && now.sha === sha) return { status: 'confirmed', effectKey: key, sha };
        return {
          status: 'refused',
          effectKey: key,
          code: 'stale_lease',
          reason: `${input.branch} is not where this push expected it (${expected || 'absent'}); someone else pushed`,
          sha,
        };
      }
      return gitFailure(key, identity, output);
    },
  };
}

function gitFailure(effectKey: string, identity: string, output: string): EffectResult {
  if (/returned error: 40[13]|Authentication failed|Permission .* denied|not allowed/i.test(output)) {
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
