import type { AdmissionConfig } from '../infra/config/admission-section';
import { type AgentDefinition, listedTools } from './definition';

/** A person's role on a repository, lowest first, as GitHub's collaborator permission API names them. */
export const GITHUB_ROLES = ['none', 'read', 'triage', 'write', 'maintain', 'admin'] as const;
export type GitHubRole = (typeof GITHUB_ROLES)[number];

/** The admission's defaults, as plain data (workflow code must not load zod): the schema's own defaults. */
export const DEFAULT_ADMISSION: AdmissionConfig = {
  operators: [],
  github: { permission: 'write', agents: {}, repos: {}, cacheSeconds: 60 },
};

export function isGitHubRole(value: unknown): value is GitHubRole {
  return typeof value === 'string' && (GITHUB_ROLES as readonly string[]).includes(value);
}

export function roleAtLeast(role: GitHubRole, minimum: GitHubRole): boolean {
  return GITHUB_ROLES.indexOf(role) >= GITHUB_ROLES.indexOf(minimum);
}

/**
 * A role from GitHub's answer: `role_name` when it is a built-in role (admin, maintain, write,
 * triage, read), else the legacy base `permission` a custom role maps to (admin, write, read, none).
 */
export function roleFromGitHub(answer: { role_name?: unknown; permission?: unknown }): GitHubRole {
  if (isGitHubRole(answer.role_name)) return answer.role_name;
  return isGitHubRole(answer.permission) ? answer.permission : 'none';
}

/** A shell with the write identity: the run's commands can push with the App's write token. */
function pushesFromShell(agent: AgentDefinition): boolean {
  return agent.identity === 'write' && (agent.machine !== 'none' || listedTools(agent).includes('bash'));
}

/** What a GitHub trigger for `agent` on `repo` requires, and the key (or rule) that says so. */
export interface GitHubRequirement {
  role: GitHubRole;
  rule: string;
}

/**
 * The role a GitHub actor needs on `repo` for `agent`: the repository's own setting for the
 * agent, else the agent's, else the repository's, else `admission.github.permission` (write).
 * Never below the agent's floor: `write` for a shell agent that holds the write identity (its
 * commands can push anything the App can: coding, ship), `triage` for every other (the config
 * cannot say `read`, which on a public repository is everyone).
 */
export function githubRequirement(
  settings: AdmissionConfig | undefined,
  repo: string | undefined,
  agent: AgentDefinition,
): GitHubRequirement {
  const github = (settings ?? DEFAULT_ADMISSION).github;
  const repoKey = repo === undefined ? undefined : Object.keys(github.repos).find((name) => name.toLowerCase() === repo.toLowerCase());
  const own = repoKey === undefined ? undefined : github.repos[repoKey];
  const configured: GitHubRequirement =
    own?.agents?.[agent.id] !== undefined
      ? { role: own.agents[agent.id], rule: `admission.github.repos.${repoKey}.agents.${agent.id}` }
      : github.agents[agent.id] !== undefined
        ? { role: github.agents[agent.id], rule: `admission.github.agents.${agent.id}` }
        : own?.permission !== undefined
          ? { role: own.permission, rule: `admission.github.repos.${repoKey}.permission` }
          : { role: github.permission, rule: 'admission.github.permission' };
  const floor: GitHubRole = pushesFromShell(agent) ? 'write' : 'triage';
  if (roleAtLeast(configured.role, floor)) return configured;
  return { role: floor, rule: `${configured.rule}, raised to ${floor}: the ${agent.id} agent runs a shell with the write identity` };
}

/**
 * The lowest role any of `agents` admits a GitHub actor at on `repo`: an actor below it can use
 * nothing there, so the GitHub door refuses them before any workflow hears of it.
 */
export function lowestGitHubRequirement(
  settings: AdmissionConfig | undefined,
  repo: string,
  agents: readonly AgentDefinition[],
): GitHubRequirement {
  let lowest: GitHubRequirement | undefined;
  for (const agent of agents) {
    const required = githubRequirement(settings, repo, agent);
    if (!lowest || !roleAtLeast(required.role, lowest.role)) lowest = required;
  }
  return lowest ?? { role: (settings ?? DEFAULT_ADMISSION).github.permission, rule: 'admission.github.permission' };
}
