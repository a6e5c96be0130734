import { attachFileTool } from './attach-file';
import { bashTool } from './bash';
import { contextBoardTool } from './context-board';
import { findFilesTool } from './find-files';
import { fleetStatusTool } from './fleet-status';
import { githubFileTool } from './github-file';
import { githubIssueCommentTool } from './github-issue-comment';
import { githubIssueCreateTool } from './github-issue-create';
import { githubIssueGetTool } from './github-issue-get';
import { githubIssueListTool } from './github-issue-list';
import { githubIssueUpdateTool } from './github-issue-update';
import { githubPullGetTool } from './github-pull-get';
import { githubReposTool } from './github-repos';
import { githubSearchCodeTool } from './github-search-code';
import { githubTreeTool } from './github-tree';
import { grepTool } from './grep';
import { listDirectoryTool } from './list-directory';
import { listSkillsTool } from './list-skills';
import { planDraftTool } from './plan-draft';
import { readFileTool } from './read-file';
import { submitDescriptionTool } from './submit-description';
import { submitDispositionsTool } from './submit-dispositions';
import { submitHandoffTool } from './submit-handoff';
import { submitReviewTool } from './submit-review';
import { taskTool } from './task';
import { type ModelToolSchema, type ToolSpec } from './tool';
import inputSchemas from './tool-schemas.json';
import type { z } from 'zod';
import { unitInspectTool } from './unit-inspect';
import { unitStartTool } from './unit-start';
import { unitSteerTool } from './unit-steer';
import { unitStopTool } from './unit-stop';
import { updateStatusTool } from './update-status';
import { useSkillTool } from './use-skill';
import { waitForJobTool } from './wait-for-job';
import { webFetchTool } from './web-fetch';
import { webSearchTool } from './web-search';
import { writeFileTool } from './write-file';

const ALL_TOOLS = [
  bashTool,
  readFileTool,
  writeFileTool,
  grepTool,
  findFilesTool,
  listDirectoryTool,
  updateStatusTool,
  webFetchTool,
  webSearchTool,
  listSkillsTool,
  useSkillTool,
  githubReposTool,
  githubTreeTool,
  githubFileTool,
  githubSearchCodeTool,
  githubIssueListTool,
  githubIssueGetTool,
  githubPullGetTool,
  githubIssueCreateTool,
  githubIssueCommentTool,
  githubIssueUpdateTool,
  submitReviewTool,
  submitDescriptionTool,
  submitDispositionsTool,
  submitHandoffTool,
  attachFileTool,
  taskTool,
  waitForJobTool,
  unitStartTool,
  unitInspectTool,
  unitSteerTool,
  unitStopTool,
  fleetStatusTool,
  contextBoardTool,
  planDraftTool,
] as const satisfies readonly ToolSpec[];

type AnyTool = (typeof ALL_TOOLS)[number];

/** Every tool name Switchboard knows. */
export type ToolName = AnyTool['name'];

/** A tool's input as its schema parses it (what an executor receives), by tool name. */
export type ToolInput<Name extends ToolName> = z.output<Extract<AnyTool, { name: Name }>['input']>;

/** Every tool by name, in a stable order (the order tool lists are shown in). */
export const TOOLS = Object.fromEntries(ALL_TOOLS.map((tool) => [tool.name, tool])) as Record<string, ToolSpec> as Readonly<
  Record<ToolName, ToolSpec>
>;

export const TOOL_NAMES: readonly ToolName[] = ALL_TOOLS.map((tool) => tool.name);

export function isToolName(name: string): name is ToolName {
  return Object.prototype.hasOwnProperty.call(TOOLS, name);
}

/** The tool called `name`, or undefined for a name Switchboard does not know. */
export function getTool(name: string): ToolSpec | undefined {
  return isToolName(name) ? TOOLS[name] : undefined;
}

/**
 * Each tool's input as JSON schema, rendered from its zod schema ahead of time (tools/tool-schemas.test.ts
 * checks it is current and regenerates it). Rendering cost several milliseconds a tool and needs zod,
 * and every run rendered its whole list in its first workflow task, before its first model turn.
 */
const INPUT_SCHEMAS = inputSchemas as unknown as Readonly<Record<string, Record<string, unknown>>>;

/** The model-facing schemas for a list of tool names, in the list's order (unknown names are skipped). */
export function modelToolSchemas(names: readonly string[]): ModelToolSchema[] {
  return names.flatMap((name) => {
    const tool = getTool(name);
    const inputSchema = INPUT_SCHEMAS[name];
    return tool && inputSchema ? [{ name, description: tool.description, inputSchema }] : [];
  });
}
