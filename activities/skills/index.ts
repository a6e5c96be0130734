import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { SandboxUnavailable, workspaceFilesFor, type WorkspaceFiles } from '../sandbox';
import { type SandboxHost } from '../sandbox/sandbox-host';
import { type WorkspaceRef } from '../../workflows/contracts/sandbox';
import { SANDBOX_VIEW } from '../sandbox/workspace-layout';
import { MAX_SKILL_BYTES, parseSkillFile, SKILL_FILE, skillFiles, subfolders, type SkillFolder, type SkillProblem } from './skill-files';

export interface SkillDeps {
  /** The workspaces' sandbox host: a checkout's skills are read inside its sandbox. */
  sandboxHost: SandboxHost;
  /** Configured skill folders (absolute): each holds one folder per skill. */
  dirs: readonly string[];
}

export interface ListSkillsInput {
  /** The run's workspace, when it has one: its checkout's .switchboard/skills/ count too. */
  workspace?: WorkspaceRef;
  query?: string;
}

export interface ListSkillsResult {
  skills: Array<{ name: string; description: string; source: SkillFolder['source'] }>;
  /** Skill folders that were skipped, and why (a bad front matter, a name already taken). */
  problems: SkillProblem[];
}

export type UseSkillResult =
  | {
      ok: true;
      name: string;
      description: string;
      source: SkillFolder['source'];
      instructions: string;
      /** Where the files beside SKILL.md are, as the run's file tools see them; absent without a workspace. */
      location?: string;
      files: string[];
      /** For a run without a workspace: small text files given inline instead. */
      inlined?: Array<{ path: string; content: string }>;
    }
  | { ok: false; code: 'skill_unknown' | 'skill_unreadable'; error: string; available: string[] };

/** Text beside SKILL.md given inline to a run that has no file tools. */
const INLINE_LIMIT = 30_000;
/** Instructions longer than this are cut (they join the conversation every later turn carries). */
const INSTRUCTIONS_LIMIT = 60_000;

function capped(text: string): string {
  return text.length > INSTRUCTIONS_LIMIT
    ? `${text.slice(0, INSTRUCTIONS_LIMIT)}\n[… SKILL.md cut at ${INSTRUCTIONS_LIMIT} characters]`
    : text;
}

/**
 * `listSkills` and `useSkill`. Skills come from the configured folders (the operator's, which
 * win a name clash) and from the run's checkout: `.switchboard/skills/` at the workspace root
 * or one folder down (a clone in a subfolder). Repository files are read only through paths
 * whose real location stays inside the workspace. A configured skill used by a run with a
 * workspace is copied into the run's private /tmp, so its files are reachable with the run's
 * own file tools without exposing the worker's folders to the sandbox.
 */
export function createSkillActivities(deps: SkillDeps) {
  async function discover(workspace?: WorkspaceRef): Promise<{
    skills: SkillFolder[];
    problems: SkillProblem[];
    bodies: Map<string, string>;
    /** A repository skill's files, as listed inside the sandbox. */
    listed: Map<string, string[]>;
    files?: WorkspaceFiles;
  }> {
    const skills: SkillFolder[] = [];
    const problems: SkillProblem[] = [];
    const bodies = new Map<string, string>();
    const listed = new Map<string, string[]>();
    const consider = (dir: string, source: SkillFolder['source'], text: string | undefined) => {
      if (text === undefined) return;
      const parsed = parseSkillFile(text);
      if (!parsed.ok) return void problems.push({ path: dir, problem: parsed.problem });
      if (skills.some((skill) => skill.name === parsed.name)) {
        return void problems.push({ path: dir, problem: `the name ${parsed.name} is taken by an earlier skill` });
      }
      skills.push({ name: parsed.name, description: parsed.description, dir, source });
      bodies.set(parsed.name, parsed.body);
    };
    for (const root of deps.dirs) {
      const realRoot = await realpath(root).catch(() => undefined);
      if (!realRoot) continue;
      for (const dir of await subfolders(realRoot, realRoot)) consider(dir, 'config', await readTrusted(join(dir, SKILL_FILE)));
    }
    const files = workspace ? await workspaceFilesFor(deps.sandboxHost, workspace) : undefined;
    if (files && !(files instanceof SandboxUnavailable)) {
      // The checkout is the sandbox's: its skill folders are found and read in there.
      for (const found of await files.repositorySkills(MAX_SKILL_BYTES, 200)) {
        consider(found.dir, 'repository', found.text);
        listed.set(found.dir, found.files);
      }
      return { skills, problems, bodies, listed, files };
    }
    return { skills, problems, bodies, listed };
  }

  return {
    async listSkills(input: ListSkillsInput): Promise<ListSkillsResult> {
      const { skills, problems } = await discover(input.workspace);
      const query = input.query?.trim().toLowerCase();
      const matching = query ? skills.filter((s) => `${s.name} ${s.description}`.toLowerCase().includes(query)) : skills;
      return { skills: matching.map(({ name, description, source }) => ({ name, description, source })), problems };
    },

    async useSkill(input: { workspace?: WorkspaceRef; name: string }): Promise<UseSkillResult> {
      const { skills, bodies, listed, files: workspaceFiles } = await discover(input.workspace);
      const skill = skills.find((candidate) => candidate.name === input.name);
      if (!skill) {
        return { ok: false, code: 'skill_unknown', error: `no skill is called "${input.name}"`, available: skills.map((s) => s.name) };
      }
      const files = skill.source === 'repository' ? (listed.get(skill.dir) ?? []) : await skillFiles(skill.dir);
      const base = {
        ok: true as const,
        name: skill.name,
        description: skill.description,
        source: skill.source,
        instructions: capped(bodies.get(skill.name) ?? ''),
        files,
      };
      if (skill.source === 'repository') return { ...base, location: skill.dir };
      if (workspaceFiles) {
        const copied = await copyIntoWorkspace(workspaceFiles, skill, files);
        if (typeof copied !== 'string') return { ok: false, code: 'skill_unreadable', error: copied.error, available: [] };
        return { ...base, location: copied };
      }
      return { ...base, inlined: await inline(skill.dir, files) };
    },
  };
}

export type SkillActivities = ReturnType<typeof createSkillActivities>;

async function readTrusted(file: string): Promise<string | undefined> {
  try {
    const bytes = await readFile(file);
    return bytes.length > MAX_SKILL_BYTES ? undefined : bytes.toString('utf8');
  } catch {
    return undefined;
  }
}

/** Copies a configured skill's text files to /tmp/skills/<name>/ of the workspace, through the guarded writer. */
async function copyIntoWorkspace(workspaceFiles: WorkspaceFiles, skill: SkillFolder, files: string[]): Promise<string | { error: string }> {
  const target = `${SANDBOX_VIEW.tmp}/skills/${skill.name}`;
  for (const file of [SKILL_FILE, ...files]) {
    const content = await readTrusted(join(skill.dir, file));
    if (content === undefined || content.includes('\0')) continue;
    const written = await workspaceFiles.write(`${target}/${file}`, content);
    if (!written.ok) return { error: `could not copy ${file} into the workspace: ${written.error}` };
  }
  return target;
}

async function inline(dir: string, files: string[]): Promise<Array<{ path: string; content: string }>> {
  const out: Array<{ path: string; content: string }> = [];
  let used = 0;
  for (const file of files) {
    const content = await readTrusted(join(dir, file));
    if (content === undefined || content.includes('\0') || used + content.length > INLINE_LIMIT) continue;
    used += content.length;
    out.push({ path: file, content });
  }
  return out;
}
