import { getTool, type ToolName } from './registry';

// A toolset is an exact list: a tool not named here does not exist for a run holding the
// set, whatever its prompt says. Groups below only save typing; membership is flat.
const GITHUB_READS = [
  'github_repos',
  'github_tree',
  'github_file',
  'github_search_code',
  'github_issue_list',
  'github_issue_get',
  'github_pull_get',
] as const satisfies readonly ToolName[];
const ISSUE_WRITES = ['github_issue_create', 'github_issue_comment', 'github_issue_update'] as const satisfies readonly ToolName[];
const SKILLS = ['list_skills', 'use_skill'] as const satisfies readonly ToolName[];
const WORKSPACE_READS = ['read_file', 'grep', 'find_files', 'list_directory'] as const satisfies readonly ToolName[];

export const TOOLSETS = {
  /** Answers and issue management: no workspace, no shell (so no file to attach either). */
  general: ['update_status', 'web_fetch', ...SKILLS, ...GITHUB_READS, ...ISSUE_WRITES],
  /** The full workspace set: the one with write_file, submit_description and delegation. */
  coding: [
    'bash',
    ...WORKSPACE_READS,
    'write_file',
    'update_status',
    'web_fetch',
    ...SKILLS,
    ...GITHUB_READS,
    'submit_description',
    'submit_dispositions',
    'submit_handoff',
    'attach_file',
    'task',
    'wait_for_job',
  ],
  /** Reads the checkout, runs checks, and returns one verdict. */
  review: ['bash', ...WORKSPACE_READS, 'update_status', ...SKILLS, ...GITHUB_READS, 'submit_review'],
  /** A pipeline holds no tools: its child runs hold theirs. */
  pipeline: [],
  /** The web, with sources. */
  research: ['web_search', 'web_fetch', 'update_status', ...SKILLS, ...GITHUB_READS],
  /**
   * The long read-only investigation: a shell in a cold sandbox and the web, nothing that writes outside it.
   * wait_for_job is the workflow's own poll of a detached job (DESIGN.md), so a long wait spends no turns.
   */
  explore: ['bash', 'read_file', 'update_status', 'web_fetch', 'web_search', ...SKILLS, ...GITHUB_READS, 'wait_for_job'],
  /** Fleet status and the linked-unit tools; no shell, no general spawn. */
  orchestrator: [
    'update_status',
    'fleet_status',
    'unit_start',
    'unit_inspect',
    'unit_steer',
    'unit_stop',
    'plan_draft',
    'web_fetch',
    ...SKILLS,
    ...GITHUB_READS,
  ],
  /** The high signal-to-noise reviewer (001's `code-review`): clones and reads in a cold sandbox, answers in text, posts nothing. */
  'code-review': ['bash', ...WORKSPACE_READS, 'update_status', ...SKILLS, ...GITHUB_READS],
  /** Memory consolidation (001's `rem-agent`): reads the trajectory it is given and changes the team board; no shell, no code. */
  rem: ['context_board'],
  /** Starts and follows read-only child runs, then reports back. */
  conductor: ['task', 'wait_for_job', 'update_status', 'plan_draft', ...SKILLS, ...GITHUB_READS],
  /** Specialist role lists (002): intersected with the parent session's tools. */
  'role-explore': ['read_file', 'grep', 'find_files', 'list_directory'],
  'role-reviewer': ['read_file', 'grep', 'find_files'],
  'role-researcher': ['read_file', 'grep', 'find_files', 'list_directory', 'web_search'],
  /** The command runner (001's `task` agent): runs a command, reads a log, waits for a detached job; writes nothing itself. */
  'role-task': ['bash', 'read_file', 'wait_for_job'],
  /** The critic (001's `rubber-duck`): reads, runs checks and looks things up; no file writes, no submissions, no delegation. */
  'role-rubber-duck': ['bash', ...WORKSPACE_READS, 'web_fetch', 'web_search', ...GITHUB_READS],
} as const satisfies Record<string, readonly ToolName[]>;

export type ToolsetName = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as ToolsetName[];

/** One-line purpose of each toolset, for docs and the CLI. */
export const TOOLSET_PURPOSES: Readonly<Record<ToolsetName, string>> = {
  general: 'Answers and issue management: no workspace, no shell.',
  coding: 'The full workspace set: shell, file writes, PR description, answers to findings, handoff, attachments, delegation.',
  review: 'Reads the checkout, runs checks, returns one verdict with findings.',
  pipeline: 'Empty: a pipeline starts child runs that hold their own tools.',
  research: 'Web search and fetch with GitHub reads; no workspace.',
  explore: 'Shell in a cold sandbox, web search and fetch, GitHub reads; nothing that writes outside the sandbox.',
  'code-review': 'Clones and reads the repository in a cold sandbox, runs checks, answers with material issues; posts nothing.',
  rem: 'The team board alone: reads the finished work it is given and adds, replaces, confirms or retires entries; no shell, no code.',
  orchestrator:
    'Fleet status, the tools to start, inspect, steer and stop a linked ship unit, and plan drafts a person confirms; no shell.',
  conductor: 'Starts and follows read-only child runs, drafts plans a person confirms, and reports back; no shell.',
  'role-explore': "Specialist role: read, grep, find, ls in the parent's workspace.",
  'role-reviewer': "Specialist role: read, grep, find in the parent's workspace.",
  'role-researcher': 'Specialist role: read, grep, find, ls and web search, as far as the parent holds them.',
  'role-task': "Specialist role: the parent's shell, a file read and the job wait, to run one command and report it.",
  'role-rubber-duck':
    'Specialist role: shell, workspace reads, web and GitHub reads to check a plan or change; no writes, as far as the parent holds them.',
};

export function isToolsetName(name: string): name is ToolsetName {
  return Object.prototype.hasOwnProperty.call(TOOLSETS, name);
}

/** The exact tool names of a toolset (empty for an unknown name). */
export function toolsetTools(name: string): readonly ToolName[] {
  return isToolsetName(name) ? TOOLSETS[name] : [];
}

/** Whether a run holding `toolset` may call `tool`: the enforcement check of the run loop. */
export function toolsetAllows(toolset: readonly string[], tool: string): boolean {
  return toolset.includes(tool);
}

/** True when any tool of the list is a shell: the sandbox can change files whatever else the list says. */
export function holdsShell(tools: readonly string[]): boolean {
  return tools.includes('bash');
}

/** True when any tool of the list writes outside the run's own sandbox and status card. */
export function publishes(tools: readonly string[]): boolean {
  return tools.some((name) => getTool(name)?.publishes === true);
}
