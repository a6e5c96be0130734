import type { ToolName } from '../../tools';

/**
 * Which executor runs each tool. A `Record` over every tool name, so a tool added to the
 * registry without an executor is a type error, not a stub answer at run time.
 * `native`: a case of the dispatcher's own switch; the others are the sets of their modules
 * (github-tools, unit-tools, web-tools, skill-tools, attach-tools).
 */
export type ExecutorFamily = 'native' | 'github' | 'unit' | 'web' | 'skills' | 'attach';

export const TOOL_EXECUTORS: Readonly<Record<ToolName, ExecutorFamily>> = {
  bash: 'native',
  read_file: 'native',
  write_file: 'native',
  grep: 'native',
  find_files: 'native',
  list_directory: 'native',
  update_status: 'native',
  submit_review: 'native',
  submit_description: 'native',
  task: 'native',
  wait_for_job: 'native',
  web_fetch: 'web',
  web_search: 'web',
  list_skills: 'skills',
  use_skill: 'skills',
  attach_file: 'attach',
  github_repos: 'github',
  github_tree: 'github',
  github_file: 'github',
  github_search_code: 'github',
  github_issue_list: 'github',
  github_issue_get: 'github',
  github_pull_get: 'github',
  github_issue_create: 'github',
  github_issue_comment: 'github',
  github_issue_update: 'github',
  unit_start: 'unit',
  unit_inspect: 'unit',
  unit_steer: 'unit',
  unit_stop: 'unit',
  fleet_status: 'unit',
};
