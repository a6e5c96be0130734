import { parse as parseYaml, YAMLError } from 'yaml';
import { type z } from 'zod';
import { FINDING_SEVERITIES, type FindingSeverity } from '../../workflows/contracts/findings';
import {
  REPOSITORY_SECTIONS,
  type RepositoriesConfig,
  type RepositorySettingsInput,
  type ReviewTrigger,
} from '../../infra/config/repository-section';
import type { McpAttachmentConfig } from '../../agents/mcp';
import { boardPolicy, repoBoardId, type BoardPolicy } from '../../agents/board';
import { httpStatusOf, toReadFailure } from './failures';
import { type GitHubIdentities } from './identity';
import { splitRepo } from './repo-name';

/** The file a repository keeps its settings in, on its default branch. */
export const SETTINGS_FILE = '.switchboard.yml';
/** A larger settings file is not read (it is reported, naming the limit). */
export const MAX_SETTINGS_BYTES = 64 * 1024;

/** A repository's settings as the deployment applies them: the file and `repositories.<owner/name>` merged, defaults filled. */
export interface RepositorySettings {
  review: { triggers: ReviewTrigger[]; debounceSeconds: number; severity: FindingSeverity };
  issues: { assign: boolean; label?: string };
  /** Setup commands before the first model turn (absent: none). */
  setup?: { commands: string[]; lockfiles: string[]; timeoutSeconds: number };
  /** The agents that may run on the repository (absent: every agent the admission allows), and who said so. */
  agents?: { allowed: string[]; rule: string };
  /** MCP servers of the deployment attached to agents on this repository, by agent id (absent: none beyond the deployment's). */
  mcp?: Record<string, McpAttachmentConfig[]>;
  /** What the file or the deployment turned off of `github.pushes` for this repository (absent: nothing). */
  pushes?: { pullRequestHeads?: false; forceOwnBranch?: false; deleteOwnBranch?: false };
  /** The repository's team board (absent: neither the file nor the deployment has a `board` section, so it is off). */
  board?: BoardPolicy;
}

/** One problem with the settings file, naming the key (`review.triggers.1`) as the file spells it. */
export interface SettingsProblem {
  key: string;
  message: string;
}

export interface RepoSettingsResult {
  repo: string;
  /** The default branch's commit the file was read at: only in results recorded before the reader read the file alone. */
  commitSha?: string;
  /** `found`: the file was read (maybe with problems); `absent`: there is none; `unreadable`: GitHub would not give it. */
  file: 'found' | 'absent' | 'unreadable';
  /** The file's blob: a notice of its problems is said once per version of the file. */
  fileSha?: string;
  settings: RepositorySettings;
  /** Keys of the file that were ignored, and why (a broken section is ignored whole; the others apply). */
  problems: SettingsProblem[];
}

export const DEFAULT_DEBOUNCE_SECONDS = 60;
export const DEFAULT_SETUP_TIMEOUT_SECONDS = 600;

/** Parses and checks a settings file, section by section: what is valid applies, each problem names its key. */
export function parseSettingsFile(text: string): { values: RepositorySettingsInput; problems: SettingsProblem[] } {
  const problems: SettingsProblem[] = [];
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    const at = error instanceof YAMLError ? error.linePos?.[0] : undefined;
    const where = at ? ` at line ${at.line}, column ${at.col}` : '';
    return { values: {}, problems: [{ key: '(file)', message: `not valid YAML${where}` }] };
  }
  if (data === null || data === undefined) return { values: {}, problems };
  if (typeof data !== 'object' || Array.isArray(data))
    return { values: {}, problems: [{ key: '(file)', message: 'expected a mapping of sections (review, issues, setup, agents)' }] };
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const schema = (REPOSITORY_SECTIONS as Record<string, z.ZodType>)[key];
    if (!schema) {
      problems.push({ key, message: `unknown key (known: ${Object.keys(REPOSITORY_SECTIONS).join(', ')})` });
      continue;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) {
      values[key] = parsed.data;
      continue;
    }
    problems.push(...parsed.error.issues.map((issue) => describeIssue(key, issue)));
    // The section without its broken keys (and list entries) applies where leaving them out can
    // only narrow what it allows: a typo in one key of `review:` leaves its triggers on.
    const rest = parsed.error.issues.every((issue) => prunable(key, issue)) ? withoutBroken(value, parsed.error.issues) : undefined;
    const again = rest === undefined ? undefined : schema.safeParse(rest);
    if (again?.success) values[key] = again.data;
  }
  return { values: values, problems };
}

/**
 * Whether a section stays, without what an issue names. `review` always (its keys only turn
 * reviews on and tune them); `issues` and `agents` for unknown keys and list entries (an agent
 * left out of `allowed` allows less; a mistyped `assign: "no"` left out would start units);
 * `setup` (a command sequence) and `mcp` (a tool allowlist left out would allow every tool) never.
 */
function prunable(section: string, issue: z.core.$ZodIssue): boolean {
  if (section === 'review') return true;
  if (section !== 'issues' && section !== 'agents') return false;
  return issue.code === 'unrecognized_keys' || typeof issue.path[issue.path.length - 1] === 'number';
}

/** Marks a list entry for removal (entries are removed after every issue is applied, so indexes hold). */
const DROPPED = Symbol('dropped');

/** A copy of `value` without what each issue names; undefined when an issue names the section itself. */
function withoutBroken(value: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  const copy = structuredClone(value) as Record<PropertyKey, unknown>;
  for (const issue of issues) {
    const path = issue.code === 'unrecognized_keys' ? issue.path : issue.path.slice(0, -1);
    let holder: unknown = copy;
    for (const step of path) holder = (holder as Record<PropertyKey, unknown> | undefined)?.[step];
    if (holder === null || typeof holder !== 'object') return undefined;
    const target = holder as Record<PropertyKey, unknown>;
    if (issue.code === 'unrecognized_keys') for (const name of issue.keys) delete target[name];
    else if (issue.path.length === 0) return undefined;
    else if (Array.isArray(target)) target[Number(issue.path[issue.path.length - 1])] = DROPPED;
    else delete target[issue.path[issue.path.length - 1]];
  }
  return pruned(copy);
}

function pruned(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((entry) => entry !== DROPPED).map(pruned);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([name, entry]) => [name, pruned(entry)]));
}

function describeIssue(section: string, issue: z.core.$ZodIssue): SettingsProblem {
  const path = [section, ...issue.path.map(String)].join('.');
  if (issue.code === 'unrecognized_keys') return { key: issue.keys.map((key) => `${path}.${key}`).join(', '), message: 'unknown key' };
  return { key: path, message: issue.message };
}

/**
 * The file's settings and the deployment's for the same repository, merged so the stricter
 * wins where both say something: fewer automatic review triggers (both lists must name one), the
 * longer debounce, the gate that addresses more findings, assignment only if neither turns it
 * off, the agents both allow; the deployment's label, setup and MCP attachments where it sets
 * them (its own word on what runs), with the shorter time bound. Unset keys take the defaults.
 * MCP attachments only ever name the deployment's own servers: one it does not configure stays off.
 */
export function mergeRepositorySettings(
  file: RepositorySettingsInput,
  deployment: RepositorySettingsInput | undefined,
  defaults: { severity: FindingSeverity; repo: string },
): RepositorySettings {
  const ours = deployment ?? {};
  const both = <T>(a: T[] | undefined, b: T[] | undefined): T[] | undefined => (a && b ? a.filter((item) => b.includes(item)) : (a ?? b));
  const severities = [file.review?.severity, ours.review?.severity].filter((s): s is FindingSeverity => s !== undefined);
  const severity = severities.length
    ? severities.reduce((a, b) => (FINDING_SEVERITIES.indexOf(a) >= FINDING_SEVERITIES.indexOf(b) ? a : b))
    : defaults.severity;
  const debounces = [file.review?.debounceSeconds, ours.review?.debounceSeconds].filter((n): n is number => n !== undefined);
  const label = ours.issues?.label ?? file.issues?.label;
  const setup = ours.setup?.commands ? ours.setup : file.setup;
  const timeouts = [file.setup?.timeoutSeconds, ours.setup?.timeoutSeconds].filter((n): n is number => n !== undefined);
  const allowed = both(file.agents?.allowed, ours.agents?.allowed);
  const mcp = ours.mcp?.agents ?? file.mcp?.agents;
  // Each push switch only turns off: either layer saying false is enough, and true widens nothing.
  const pushes = Object.fromEntries(
    (['pullRequestHeads', 'forceOwnBranch', 'deleteOwnBranch'] as const)
      .filter((key) => file.pushes?.[key] === false || ours.pushes?.[key] === false)
      .map((key) => [key, false]),
  ) as NonNullable<RepositorySettings['pushes']>;
  const rule =
    file.agents?.allowed && ours.agents?.allowed
      ? `${SETTINGS_FILE} agents.allowed and repositories.${defaults.repo}.agents.allowed`
      : file.agents?.allowed
        ? `${SETTINGS_FILE} agents.allowed`
        : `repositories.${defaults.repo}.agents.allowed`;
  return {
    review: {
      triggers: both(file.review?.triggers, ours.review?.triggers) ?? [],
      debounceSeconds: debounces.length ? Math.max(...debounces) : DEFAULT_DEBOUNCE_SECONDS,
      severity,
    },
    issues: { assign: file.issues?.assign !== false && ours.issues?.assign !== false, ...(label ? { label } : {}) },
    ...(setup?.commands?.length
      ? {
          setup: {
            commands: setup.commands,
            lockfiles: setup.lockfiles ?? [],
            timeoutSeconds: timeouts.length ? Math.min(...timeouts) : DEFAULT_SETUP_TIMEOUT_SECONDS,
          },
        }
      : {}),
    ...(allowed ? { agents: { allowed, rule } } : {}),
    ...(mcp && Object.keys(mcp).length > 0 ? { mcp } : {}),
    ...(Object.keys(pushes).length > 0 ? { pushes } : {}),
    ...(file.board || ours.board
      ? {
          board: boardPolicy(
            repoBoardId(defaults.repo),
            file.board,
            ours.board,
            ours.board && !file.board ? `repositories.${defaults.repo}.board` : `${SETTINGS_FILE} board`,
          ),
        }
      : {}),
  };
}

export interface RepoSettingsDeps {
  identities: Pick<GitHubIdentities, 'octokitFor' | 'tokenFor'>;
  /** The deployment's `repositories` section. */
  repositories?: RepositoriesConfig;
  /** `review.addressSeverity`: the gate where neither the file nor the deployment sets one. */
  defaultSeverity?: FindingSeverity;
}

/**
 * Reads `.switchboard.yml` from a repository's default branch with the read identity: one
 * contents request (no ref, so GitHub answers from the default branch), the file parsed once per
 * version (its blob), merged with the deployment's settings for the repository. It never asks
 * for the repository itself: that GET is the repository vet's (workflows/thread/vet.ts), one per
 * message. GitHub's silence is thrown (an activity retries it); a repository or file GitHub will
 * not give is answered, never thrown, so a broken or hidden file never stops work.
 */
export function createRepoSettingsReader(deps: RepoSettingsDeps) {
  const byBlob = new Map<string, { values: RepositorySettingsInput; problems: SettingsProblem[] }>();
  const deploymentFor = (repo: string) =>
    Object.entries(deps.repositories ?? {}).find(([name]) => name.toLowerCase() === repo.toLowerCase())?.[1];
  const answer = (repo: string, parsed: Omit<RepoSettingsResult, 'repo' | 'settings'> & { values: RepositorySettingsInput }) => {
    const { values, ...rest } = parsed;
    return {
      repo,
      ...rest,
      settings: mergeRepositorySettings(values, deploymentFor(repo), { severity: deps.defaultSeverity ?? 'minor', repo }),
    };
  };

  return {
    async read(repo: string): Promise<RepoSettingsResult> {
      if (!(await deps.identities.tokenFor('read')))
        return answer(repo, {
          file: 'unreadable',
          values: {},
          problems: [{ key: '(file)', message: `no GitHub read identity is configured, so ${SETTINGS_FILE} was not read` }],
        });
      const gh = await deps.identities.octokitFor('read');
      const where = splitRepo(repo);
      let data: Awaited<ReturnType<typeof gh.rest.repos.getContent>>['data'];
      try {
        ({ data } = await gh.rest.repos.getContent({ ...where, path: SETTINGS_FILE }));
      } catch (error) {
        const status = httpStatusOf(error);
        // GitHub answers 404 alike for a missing file and a repository the identity cannot see.
        if (status === 404) return answer(repo, { file: 'absent', values: {}, problems: [] });
        if (status === 401 || status === 403)
          return answer(repo, {
            file: 'unreadable',
            values: {},
            problems: [
              { key: '(file)', message: `GitHub would not show ${repo}'s ${SETTINGS_FILE} to the read identity (HTTP ${status})` },
            ],
          });
        throw toReadFailure(error, `${SETTINGS_FILE} of ${repo}`);
      }
      if (Array.isArray(data) || data.type !== 'file')
        return answer(repo, { file: 'found', values: {}, problems: [{ key: '(file)', message: `${SETTINGS_FILE} is not a file` }] });
      if (data.size > MAX_SETTINGS_BYTES)
        return answer(repo, {
          file: 'found',
          fileSha: data.sha,
          values: {},
          problems: [{ key: '(file)', message: `larger than ${MAX_SETTINGS_BYTES} bytes, so it was not read` }],
        });
      let parsed = byBlob.get(data.sha);
      if (!parsed) {
        parsed = parseSettingsFile(Buffer.from(data.content ?? '', 'base64').toString('utf8'));
        byBlob.set(data.sha, parsed);
        // The oldest versions drop off first (a Map iterates in insertion order).
        if (byBlob.size > 500) byBlob.delete(byBlob.keys().next().value!);
      }
      return answer(repo, { file: 'found', fileSha: data.sha, ...parsed });
    },
  };
}

export type RepoSettingsReader = ReturnType<typeof createRepoSettingsReader>;
