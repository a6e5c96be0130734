import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Fixed identity and dates so the local GitHub's commits are reproducible; nothing else of the
 * process's environment (no token of a test's, no user's git configuration).
 */
const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: tmpdir(),
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Local GitHub',
  GIT_AUTHOR_EMAIL: 'local-github@example.invalid',
  GIT_COMMITTER_NAME: 'Local GitHub',
  GIT_COMMITTER_EMAIL: 'local-github@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** Runs git synchronously in a repository of the local GitHub; throws on failure. */
export function git(dir: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd: dir, env: GIT_ENV, input, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
}

/** Like `git`, but answers undefined instead of throwing (unknown ref, missing path). */
export function tryGit(dir: string, args: string[]): string | undefined {
  try {
    return git(dir, args);
  } catch {
    return undefined;
  }
}

export function revParse(dir: string, ref: string): string | undefined {
  return tryGit(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])?.trim() || undefined;
}

/** Creates a bare repository at `dir` whose default branch holds `files` in one commit. */
export function createBareRepository(dir: string, defaultBranch: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '--bare', '--quiet', `--initial-branch=${defaultBranch}`]);
  git(dir, ['config', 'http.receivepack', 'true']);
  return commitFiles(dir, defaultBranch, files, 'Initial commit');
}

/**
 * Commits `files` on top of `branch` (creating it from the default branch if absent) and moves
 * the branch, as a push would. Returns the new commit.
 */
export function commitFiles(bareDir: string, branch: string, files: Record<string, string>, message: string, from?: string): string {
  const work = mkdtempSync(join(tmpdir(), 'local-github-work-'));
  try {
    git(work, ['init', '--quiet']);
    const parent = revParse(bareDir, `refs/heads/${branch}`) ?? (from ? revParse(bareDir, from) : undefined);
    if (parent) {
      git(work, ['fetch', '--quiet', bareDir, parent]);
      git(work, ['checkout', '--quiet', parent]);
    }
    for (const [path, content] of Object.entries(files)) {
      const full = join(work, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
    git(work, ['add', '-A']);
    git(work, ['commit', '--quiet', '--allow-empty', '-m', message]);
    const sha = git(work, ['rev-parse', 'HEAD']).trim();
    git(work, ['push', '--quiet', '--force', bareDir, `HEAD:refs/heads/${branch}`]);
    return sha;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** All branch heads, for noticing what a push changed. */
export function branchHeads(dir: string): Map<string, string> {
  const out = tryGit(dir, ['for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads']) ?? '';
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ') as [string, string]),
  );
}

export interface TreeItem {
  mode: string;
  type: string;
  sha: string;
  size?: number;
  path: string;
}

export function listTree(dir: string, treeish: string, recursive: boolean): TreeItem[] | undefined {
  const out = tryGit(dir, ['ls-tree', '-l', ...(recursive ? ['-r', '-t'] : []), treeish]);
  if (out === undefined) return undefined;
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [meta, path] = line.split('\t');
      const [mode, type, sha, size] = meta.split(/\s+/);
      return { mode, type, sha, size: size === '-' ? undefined : Number(size), path };
    });
}

export function readBlob(dir: string, sha: string): Buffer {
  return execFileSync('git', ['cat-file', 'blob', sha], { cwd: dir, env: GIT_ENV, maxBuffer: 64 * 1024 * 1024 });
}

export interface ChangedFile {
  filename: string;
  status: string;
  additions: number;
  deletions: number;
  patch: string;
}

/** The files a PR changes: head against the merge base with base, as GitHub shows them. */
export function changedFiles(dir: string, base: string, head: string): ChangedFile[] {
  const range = `${base}...${head}`;
  const numstat = tryGit(dir, ['diff', '--numstat', range]) ?? '';
  const statuses = new Map(
    (tryGit(dir, ['diff', '--name-status', range]) ?? '')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [s, ...rest] = l.split('\t');
        return [rest[rest.length - 1], s[0]] as const;
      }),
  );
  const names: Record<string, string> = { A: 'added', D: 'removed', M: 'modified', R: 'renamed' };
  return numstat
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [added, deleted, filename] = line.split('\t');
      const lines = (tryGit(dir, ['diff', range, '--', filename]) ?? '').split('\n');
      const hunks = lines.findIndex((l) => l.startsWith('@@'));
      const patch = hunks < 0 ? '' : lines.slice(hunks).join('\n');
      return {
        filename,
        status: names[statuses.get(filename) ?? 'M'] ?? 'modified',
        additions: Number(added) || 0,
        deletions: Number(deleted) || 0,
        patch,
      };
    });
}
