import { type Dirent } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** One skill folder: a SKILL.md with `name` and `description` in its front matter, and files beside it. */
export interface SkillFolder {
  name: string;
  description: string;
  /** The folder on the worker's disk (real path). */
  dir: string;
  /** `config` for an operator's configured folder, `repository` for the checkout's .switchboard/skills/. */
  source: 'config' | 'repository';
}

export interface SkillProblem {
  path: string;
  problem: string;
}

export const SKILL_FILE = 'SKILL.md';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MAX_SKILL_BYTES = 200_000;

/** Splits SKILL.md into its front matter (validated) and its instructions. */
export function parseSkillFile(
  text: string,
): { ok: true; name: string; description: string; body: string } | { ok: false; problem: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { ok: false, problem: 'SKILL.md must start with YAML front matter between --- lines' };
  let meta: unknown;
  try {
    meta = parseYaml(match[1]);
  } catch (error) {
    return { ok: false, problem: `its front matter is not YAML: ${(error as Error).message.split('\n')[0]}` };
  }
  const { name, description } = (meta ?? {}) as { name?: unknown; description?: unknown };
  if (typeof name !== 'string' || !NAME.test(name)) {
    return { ok: false, problem: 'front matter `name` must be 1-64 letters, digits, dots, dashes or underscores' };
  }
  if (typeof description !== 'string' || !description.trim() || description.length > 1024) {
    return { ok: false, problem: 'front matter `description` must be non-empty text of at most 1024 characters' };
  }
  return { ok: true, name, description: description.trim().replace(/\s+/g, ' '), body: text.slice(match[0].length).trim() };
}

export function within(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + sep);
}

/** The immediate sub-folders of `dir` whose real path stays under `root` (a link out is skipped). */
export async function subfolders(dir: string, root: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
    const real = await realpath(join(dir, entry.name)).catch(() => undefined);
    if (real && within(root, real)) found.push(real);
  }
  return found;
}

/**
 * Every file under a skill folder (relative paths), links and anything outside skipped,
 * at most `limit` of them: what the model may read beside SKILL.md.
 */
export async function skillFiles(dir: string, limit = 200): Promise<string[]> {
  const files: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => [] as Dirent[]);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (files.length >= limit) return;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !(folder === dir && entry.name === SKILL_FILE)) files.push(relative(dir, path));
    }
  };
  await walk(dir);
  return files;
}
