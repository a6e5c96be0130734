import type { Activities } from '../../../activities';
import type { ToolName } from '../../../tools';

/** An activity the worker registers (a misspelt one does not compile). */
type ActivityName = Extract<keyof Activities, string>;

/**
 * Which activities each tool's executor schedules (workflows/run/executors/), so a page can put
 * a command's exit code or a file's bytes under the call that asked for it. A turn's calls run
 * in order, and their activities are scheduled in that order, so each activity goes to the first
 * call of the turn that can have made it. `many`: the tool makes several (a job's polls, a
 * direct run's delivery). Workflow-native tools (`update_status`, `task`) make none. A tool
 * added to the registry does not compile until it has an entry here.
 */
export const TOOL_ACTIVITIES: Record<ToolName, { types: readonly ActivityName[]; many?: boolean }> = {
  bash: { types: ['bash'] },
  grep: { types: ['bash'] },
  find_files: { types: ['bash'] },
  list_directory: { types: ['bash'] },
  read_file: { types: ['readFile'] },
  write_file: { types: ['writeFile'] },
  update_status: { types: [] },
  web_fetch: { types: ['webFetch'] },
  web_search: { types: ['webSearch'] },
  list_skills: { types: ['listSkills'] },
  use_skill: { types: ['useSkill'] },
  attach_file: { types: ['attachFile'] },
  github_repos: { types: ['githubRepos'] },
  github_tree: { types: ['githubTree'] },
  github_file: { types: ['githubFile'] },
  github_search_code: { types: ['githubSearchCode'] },
  github_issue_list: { types: ['githubIssueList'] },
  github_issue_get: { types: ['githubIssueGet'] },
  github_pull_get: { types: ['githubPullGet'] },
  github_issue_create: { types: ['createIssue'] },
  github_issue_comment: { types: ['postComment'] },
  github_issue_update: { types: ['updateIssue'] },
  // A direct run delivers its submission itself (run/direct-work.ts); in a unit's run they make none.
  submit_review: { types: ['githubPullGet', 'postReview'], many: true },
  submit_description: { types: ['commitWorkspace', 'pushBranch', 'githubPullGet', 'openOrUpdatePullRequest'], many: true },
  // Recorded for the unit, which posts the answers and the handoff after the run.
  submit_dispositions: { types: [] },
  submit_handoff: { types: [] },
  task: { types: [] },
  wait_for_job: { types: ['jobStatus'], many: true },
  unit_start: { types: ['startUnit'] },
  unit_inspect: { types: ['inspectUnit'] },
  unit_steer: { types: ['inspectUnit'] },
  unit_stop: { types: ['inspectUnit'] },
  fleet_status: { types: ['listUnits'], many: true },
  context_board: { types: ['changeBoard'] },
  plan_draft: { types: [] },
};

/** Activities that are the run's own housekeeping, never a tool's: not shown in the conversation. */
export const HOUSEKEEPING = new Set<string>([
  'statusCard',
  'prepareWorkspace',
  'closeWorkspace',
  'releaseWorkspace',
  'loadAgentSetup',
  'vetRepository',
  'runProgress',
  'readBoard',
] satisfies ActivityName[]);

export function activityTypesOf(tool: string): { types: readonly string[]; many?: boolean } {
  return (TOOL_ACTIVITIES as Record<string, { types: readonly string[]; many?: boolean }>)[tool] ?? { types: [] };
}
