import type { ToolCall, ToolResult } from '../../contracts/model';
import type { WorkspaceRef } from '../../contracts/sandbox';
import type { ToolInput, ToolName } from '../../../tools';
import type {
  AttachActivities,
  BoardActivityTypes,
  GitHubWriteActivities,
  SandboxActivities,
  SetupActivities,
  SkillActivities,
  UnitClientActivities,
  WebActivities,
} from '../../activity-proxies';
import type { GitHubActivities } from '../../../activities/github';
import type { SignalDefinition } from '@temporalio/workflow';
import type { RunState } from '../run-state';
import type { McpTools } from '../mcp-tools';

/** The activities executors call, as the run hands them in (the proxies; plain fakes in tests). */
export interface ExecutorActivities {
  shell: Pick<SandboxActivities, 'bash'>;
  files: Omit<SandboxActivities, 'bash' | 'closeWorkspace'>;
  githubReads: GitHubActivities;
  githubWrites: GitHubWriteActivities;
  units: UnitClientActivities;
  /** The agent setup the admission decides by (a unit tool admits as the person; absent in tests that need none). */
  setup?: SetupActivities;
  web: WebActivities;
  skills: SkillActivities;
  attach: AttachActivities;
  /** A rem-agent run's board changes (absent in tests that need none). */
  boards?: Pick<BoardActivityTypes, 'changeBoard'>;
}

/** What executing a call needs from the run that owns it. */
export interface ToolContext {
  state: RunState;
  workspace: WorkspaceRef;
  activities: ExecutorActivities;
  /** Marks the status card for its next (throttled) update. */
  touchCard(): void;
  /** Starts a `task` child run; resolves with the tool result (sync) or at once (background). */
  runTask(call: ToolCall, input: ToolInput<'task'>): Promise<ToolResult>;
  /** Waits for a background task by job id; resolves when it ended or the budget did. */
  waitForTask(call: ToolCall, jobId: string): Promise<ToolResult>;
  /** Millis left in the budget (the workflow clock). */
  remainingMs(): number;
  /** A workflow timer. */
  sleep(ms: number): Promise<void>;
  /** Signals another workflow (a unit the run steers or stops). */
  signal<Args extends unknown[]>(workflowId: string, definition: SignalDefinition<Args>, ...args: Args): Promise<void>;
  /**
   * A direct review or coding run's delivery of `submit_review` / `submit_description`
   * (run/direct-work.ts); absent in a unit's runs and `task` children, whose submissions are
   * only recorded.
   */
  direct?: {
    submitReview(call: ToolCall, input: ToolInput<'submit_review'>): Promise<ToolResult>;
    submitDescription(call: ToolCall, input: ToolInput<'submit_description'>): Promise<ToolResult>;
  };
  /** How often the workspace was lost with its host, and what the model was told (absent in tests without hosts). */
  workspaceLoss?(): { losses: number; notice?: string };
  /** The effect key of a publishing call: `<runId>/<tool>/<turn>.<index>`, stable across retries and replays. */
  effectKey(call: ToolCall): string;
  /** `patched()` in the workflow (absent in tests: every patch applies). */
  patched?(id: string): boolean;
  /** The run's MCP servers' tools (absent: none attached). */
  mcp?: McpTools;
}

/** Runs one validated call of tool `Name`. Failures come back as data for the model, never thrown. */
export type ToolExecutor<Name extends ToolName> = (ctx: ToolContext, call: ToolCall, input: ToolInput<Name>) => Promise<ToolResult>;

/** One executor per tool the registry knows: the compiler refuses a map that misses one. */
export type ExecutorMap = { readonly [Name in ToolName]: ToolExecutor<Name> };
