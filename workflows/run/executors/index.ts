/**
 * Which code runs each tool, by name. The map's type has one key per tool in the registry
 * (`tools/registry.ts`), so a tool added there does not compile until its executor is plugged
 * in here: one import and one line. Executors live beside this file, grouped by family.
 */
import type { ExecutorMap } from './context';
import {
  githubFile,
  githubIssueComment,
  githubIssueCreate,
  githubIssueGet,
  githubIssueList,
  githubIssueUpdate,
  githubPullGet,
  githubRepos,
  githubSearchCode,
  githubTree,
} from './github';
import { attachFile } from './attach';
import { contextBoard } from './board';
import { waitForJob } from './jobs';
import { planDraft, submitDescription, submitDispositions, submitHandoff, submitReview, task, updateStatus } from './results';
import { listSkills, useSkill } from './skills';
import { fleetStatus, unitInspect, unitStart, unitSteer, unitStop } from './units';
import { webFetch, webSearch } from './web';
import { bash, findFiles, grep, listDirectory, readFile, writeFile } from './workspace';

export const EXECUTORS: ExecutorMap = {
  bash,
  read_file: readFile,
  write_file: writeFile,
  grep,
  find_files: findFiles,
  list_directory: listDirectory,
  update_status: updateStatus,
  web_fetch: webFetch,
  web_search: webSearch,
  list_skills: listSkills,
  use_skill: useSkill,
  attach_file: attachFile,
  github_repos: githubRepos,
  github_tree: githubTree,
  github_file: githubFile,
  github_search_code: githubSearchCode,
  github_issue_list: githubIssueList,
  github_issue_get: githubIssueGet,
  github_pull_get: githubPullGet,
  github_issue_create: githubIssueCreate,
  github_issue_comment: githubIssueComment,
  github_issue_update: githubIssueUpdate,
  submit_review: submitReview,
  submit_description: submitDescription,
  submit_dispositions: submitDispositions,
  submit_handoff: submitHandoff,
  task,
  wait_for_job: waitForJob,
  unit_start: unitStart,
  unit_inspect: unitInspect,
  unit_steer: unitSteer,
  unit_stop: unitStop,
  fleet_status: fleetStatus,
  context_board: contextBoard,
  plan_draft: planDraft,
};

export type { ExecutorActivities, ExecutorMap, ToolContext, ToolExecutor } from './context';
