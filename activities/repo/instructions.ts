import { posix } from 'node:path';
import { httpStatusOf, toReadFailure } from '../github/failures';
import { type GitHubIdentities } from '../github/identity';
import { splitRepo } from '../github/repo-name';
import { SandboxUnavailable, workspaceFilesFor } from '../sandbox';
import { type SandboxHost } from '../sandbox/sandbox-host';
import { type WorkspaceRef } from '../../workflows/contracts/sandbox';
import type { InstructionsInput, LoadedInstructions } from '../../workflows/contracts/instructions';

/** The files a repository tells agents how to work in it with, after the nearest AGENTS.md files. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md', '.switchboard/instructions.md'] as const;
/** One file's share of the prompt, and all of them together (characters). */
export const MAX_INSTRUCTION_CHARS = 16_000;
export const MAX_INSTRUCTIONS_TOTAL = 32_000;
/** Folders looked in for an AGENTS.md nearer to the paths in play than the root's. */
const MAX_NEAR_FOLDERS = 8;
/** A file larger than this is not read at all (the head of a huge file is no instruction). */
const MAX_FILE_BYTES = 256 * 1024;

/**
 * The candidate files in prompt order: for each path in play, the AGENTS.md of its nearest
 * folder that has one (tried from the deepest folder up, the root excluded), most specific
 * first; then the root's AGENTS.md, CLAUDE.md, `.github/copilot-instructions.md` and
 * `.switchboard/instructions.md`. `exists` answers whether a file is there.
 */
export async function findInstructionFiles(paths: readonly string[], exists: (path: string) => Promise<boolean>): Promise<string[]> {
  const near: string[] = [];
  const tried = new Set<string>();
  for (const path of paths) {
    const clean = posix.normalize(path.replace(/^\/+/, '').replace(/^workspace\//, ''));
    if (clean.startsWith('..')) continue;
    for (let dir = posix.dirname(clean); dir !== '.' && dir !== '/' && dir !== ''; dir = posix.dirname(dir)) {
      const candidate = `${dir}/AGENTS.md`;
      if (near.includes(candidate)) break;
      if (tried.has(candidate) || tried.size >= MAX_NEAR_FOLDERS) continue;
      tried.add(candidate);
      if (await exists(candidate)) {
        near.push(candidate);
        break;
      }
    }
  }
  near.sort((a, b) => b.split('/').length - a.split('/').length);
  const found = [...near];
  for (const file of INSTRUCTION_FILES) if (await exists(file)) found.push(file);
  return found;
}

/** Fits the files' texts into the prompt's share: each cut at its limit, and the total kept under its own. */
export function boundInstructions(texts: Array<{ path: string; text: string }>): Pick<LoadedInstructions, 'files' | 'skipped'> {
  const files: LoadedInstructions['files'] = [];
  const skipped: LoadedInstructions['skipped'] = [];
  let total = 0;
  for (const { path, text } of texts) {
    const trimmed = text.trim();
    if (!trimmed) continue;
    const room = Math.min(MAX_INSTRUCTION_CHARS, MAX_INSTRUCTIONS_TOTAL - total);
    if (room < 200) {
      skipped.push({ path, why: `the ${MAX_INSTRUCTIONS_TOTAL}-character limit of all instructions was reached` });
      continue;
    }
    const cut = trimmed.length > room;
    const kept = cut ? trimmed.slice(0, room) : trimmed;
    files.push({ path, text: kept, chars: trimmed.length, ...(cut ? { cut: true } : {}) });
    total += kept.length;
  }
  return { files, skipped };
}

/**
 * `loadInstructions`: the repository's instruction files for a run. With a checkout they are
 * read inside the workspace's sandbox (the worker never opens what a run's commands wrote);
 * without one, through the contents API with the read identity. Bounded in size; a file that
 * is not there is simply not listed.
 */
export function createInstructionsActivities(deps: {
  sandboxHost: SandboxHost;
  identities: Pick<GitHubIdentities, 'octokitFor' | 'tokenFor'>;
}) {
  async function fromCheckout(input: InstructionsInput, workspace: WorkspaceRef): Promise<LoadedInstructions | undefined> {
    const files = await workspaceFilesFor(deps.sandboxHost, workspace);
    if (files instanceof SandboxUnavailable) return undefined;
    const read = new Map<string, string | undefined>();
    const text = async (path: string) => {
      if (!read.has(path)) {
        const got = await files.readBytes(path, MAX_FILE_BYTES);
        read.set(path, got.ok && !got.bytes.subarray(0, 8_000).includes(0) ? got.bytes.toString('utf8') : undefined);
      }
      return read.get(path);
    };
    const found = await findInstructionFiles(input.paths ?? [], async (path) => (await text(path)) !== undefined);
    const texts = await Promise.all(found.map(async (path) => ({ path, text: (await text(path)) ?? '' })));
    return { source: 'checkout', ...boundInstructions(texts) };
  }

  async function fromGitHub(input: InstructionsInput): Promise<LoadedInstructions> {
    if (!(await deps.identities.tokenFor('read'))) return { source: 'github', files: [], skipped: [] };
    const gh = await deps.identities.octokitFor('read');
    const where = splitRepo(input.repo);
    const what = `the instruction files of ${input.repo}`;
    const read = new Map<string, string | undefined>();
    const text = async (path: string) => {
      if (!read.has(path)) {
        try {
          const { data } = await gh.rest.repos.getContent({ ...where, path, ...(input.ref ? { ref: input.ref } : {}) });
          const file = !Array.isArray(data) && data.type === 'file' && data.size <= MAX_FILE_BYTES ? data : undefined;
          read.set(path, file ? Buffer.from(file.content, 'base64').toString('utf8') : undefined);
        } catch (error) {
          const status = httpStatusOf(error);
          if (status === 404 || status === 403) read.set(path, undefined);
          else throw toReadFailure(error, what);
        }
      }
      return read.get(path);
    };
    const found = await findInstructionFiles(input.paths ?? [], async (path) => (await text(path)) !== undefined);
    const texts = await Promise.all(found.map(async (path) => ({ path, text: (await text(path)) ?? '' })));
    return { source: 'github', ...boundInstructions(texts) };
  }

  /** The files a pull request changes: its paths in play (none when it cannot be listed). */
  async function pullRequestPaths(repo: string, number: number): Promise<string[]> {
    if (!(await deps.identities.tokenFor('read'))) return [];
    const gh = await deps.identities.octokitFor('read');
    try {
      const files = await gh.paginate(gh.rest.pulls.listFiles, { ...splitRepo(repo), pull_number: number, per_page: 100 });
      return files.map((file) => file.filename).slice(0, 300);
    } catch (error) {
      // A pull request we cannot list only costs the nearer AGENTS.md files; GitHub's silence is retried.
      const status = httpStatusOf(error);
      if (status === undefined || status >= 500) throw toReadFailure(error, `the files of ${repo}#${number}`);
      return [];
    }
  }

  return {
    async loadInstructions(request: InstructionsInput): Promise<LoadedInstructions> {
      const input =
        !request.paths?.length && request.pullRequest
          ? { ...request, paths: await pullRequestPaths(request.repo, request.pullRequest) }
          : request;
      if (input.workspace) {
        const loaded = await fromCheckout(input, input.workspace);
        if (loaded) return loaded;
      }
      return fromGitHub(input);
    },
  };
}

export type InstructionsActivities = ReturnType<typeof createInstructionsActivities>;
