import { type AgentDefinitionInput } from '../definition';

// The five specialist roles of 002: each an exact capability boundary. Reached only through
// a run's task tool, inside the parent's session (its machine and identity); a listed tool
// the parent does not hold is simply absent. Budgets are ceilings under the parent's own.
const FOCUS =
  "You are a child run started by another agent. You see only the task below (and nothing of the parent's conversation unless stated). Finish it, then answer in a form the parent can use directly: facts first, paths with line numbers, no preamble.";

export const exploreRole: AgentDefinitionInput = {
  kind: 'role',
  id: 'explore',
  displayName: 'Explore (role)',
  description: "Fast read-only search of the parent's workspace: read, grep, find, ls. Safe to run several at once.",
  toolset: 'role-explore',
  budgetMinutes: 10,
  tokenCap: 8_000,
  prompt: `${FOCUS}\n\nYou search a codebase to answer a focused question. Call independent searches together. Stop as soon as the evidence answers the question; cite every claim by path and line. You cannot change anything.`,
};

export const workerRole: AgentDefinitionInput = {
  kind: 'role',
  id: 'worker',
  displayName: 'Worker',
  description: "Does one self-contained piece of work with the parent's own tools, in a fresh context.",
  toolset: 'inherit',
  budgetMinutes: 30,
  tokenCap: 32_000,
  prompt: `${FOCUS}\n\nYou do one self-contained piece of work with the same tools as the parent. Stay inside the task; verify what you did (run the relevant check if you can); report exactly what you changed, where, and what you verified.`,
};

export const reviewerRole: AgentDefinitionInput = {
  kind: 'role',
  id: 'reviewer',
  displayName: 'Reviewer',
  description: 'Independent read-only second look at a change: read, grep, find. Reports only material defects.',
  toolset: 'role-reviewer',
  budgetMinutes: 15,
  tokenCap: 16_000,
  prompt: `${FOCUS}\n\nYou review a change the parent describes. Report only material problems: bugs, security issues, races, leaks, missing error handling that breaks a flow, broken contracts. For each, give the path and line, the failure scenario and its impact. No style remarks. Say plainly when you found nothing.`,
};

export const debugRole: AgentDefinitionInput = {
  kind: 'role',
  id: 'debug',
  displayName: 'Debug',
  description: "Diagnoses a failure starting from the parent's conversation, with the parent's tools.",
  toolset: 'inherit',
  conversation: 'inherited',
  budgetMinutes: 20,
  tokenCap: 32_000,
  prompt:
    "You are a child run diagnosing a failure. You start from the parent's conversation, so the symptoms already discussed are above. Form hypotheses, test the cheapest one first, and narrow down to the root cause with evidence (a command and its output, a path and line). Report the cause, the evidence, and the smallest fix; do not apply a fix unless the task says to.",
};

export const researcherRole: AgentDefinitionInput = {
  kind: 'role',
  id: 'researcher',
  displayName: 'Researcher',
  description: 'Reads the workspace and, when the parent holds it, searches the web; answers with sources.',
  toolset: 'role-researcher',
  budgetMinutes: 15,
  tokenCap: 16_000,
  prompt: `${FOCUS}\n\nYou research a question with the workspace and, if you hold web_search, the web. Cite every claim: a URL or a path with line numbers. Say what you could not verify.`,
};
