/**
 * Inputs, state and results of `agentRunWorkflow`. Dependency-free types, so front ends,
 * the CLI and tests import them without pulling in workflow code.
 */
import type { ChatMessage, ToolCall } from '../activities/models/types';
import type { Profile } from '../agents/profile';

export type RunOutcome = 'completed' | 'stopped' | 'budget' | 'turns' | 'tokens' | 'failed';

/** Where a run's card and answer go. */
export type ReplyTarget =
  | { kind: 'slack'; team: string; channel: string; threadTs: string }
  | { kind: 'github'; repo: string; pullRequest: number }
  | { kind: 'api' }
  | { kind: 'cli' };

export interface Requester {
  id: string;
  surface: 'slack' | 'github' | 'http' | 'mcp' | 'cli';
  displayName?: string;
  /** A self-serve API/MCP token: it and every child run it delegates to stay away from shells. */
  selfServe?: boolean;
  /** The agents the caller's API token allows (its `agents`), with the config key; absent: no narrowing. */
  grant?: { agents: string[]; rule: string };
}

export interface RunInput {
  threadId: string;
  profile: Profile;
  /** The complete system prompt (agent prompt, config block, About block). */
  system: string;
  /** The request text, directives removed. */
  request: string;
  requester: Requester;
  /** Earlier turns the run starts from: the thread's saved context, or a parent's conversation for `debug`. */
  context: ChatMessage[];
  replyTarget: ReplyTarget;
  /** The sandbox workspace to run in (default: the thread's); a unit's runs use the unit's checkout. */
  workspaceKey?: string;
  /** Set for child runs started by the `task` tool. */
  parent?: { workflowId: string; depth: number };
  /** Carried across continue-as-new; absent on the first start. */
  carry?: RunCarry;
}

/** The state that survives continue-as-new (the conversation, not the history). */
export interface RunCarry {
  startedAt: number;
  deadline: number;
  messages: ChatMessage[];
  turns: number;
  tokens: { input: number; output: number };
  toolCalls: ToolCallRecord[];
  children: ChildRecord[];
  pendingSteers: SteerInput[];
  jobWaits: { polls: number; waitedMs: number };
  taskCounter: number;
  statusText?: string;
  submissions: Record<string, unknown>;
}

export interface SteerInput {
  text: string;
  by?: string;
}

export interface StopInput {
  reason?: string;
  by?: string;
}

export interface ToolCallRecord {
  turn: number;
  name: string;
  ok: boolean;
  /** Why a call was refused or failed, in words. */
  error?: string;
}

export interface ChildRecord {
  /** The task's number in this run (call order). */
  index: number;
  workflowId: string;
  agent: string;
  name?: string;
  mode: 'sync' | 'background';
  outcome?: RunOutcome;
  startedAt: number;
  endedAt?: number;
}

export type RunPhase = 'starting' | 'thinking' | 'tools' | 'waiting' | 'summarising' | 'finished';

/** The `status` query's answer. */
export interface RunStatus {
  runId: string;
  agent: string;
  model: string;
  phase: RunPhase;
  turns: number;
  turnGuard: number;
  tokens: { input: number; output: number };
  elapsedMs: number;
  budget: { minutes: number; boundedBy: string; description: string };
  lastTool?: string;
  statusText?: string;
  outcome?: RunOutcome;
}

/** The run's result: what happened, and which bound ended it. */
export interface RunRecord {
  runId: string;
  threadId: string;
  profile: Profile;
  request: string;
  requester: Requester;
  outcome: RunOutcome;
  /** For `budget`, `turns`, `tokens`: the bound in words; for `stopped`: who and why. */
  endedBy?: string;
  turns: number;
  tokens: { input: number; output: number };
  toolCalls: ToolCallRecord[];
  children: ChildRecord[];
  jobWaits: { polls: number; waitedMs: number };
  finalText: string;
  /** Structured results from workflow-native tools (`submit_review`, `submit_description`). */
  submissions: Record<string, unknown>;
  startedAt: number;
  endedAt: number;
  /** The last tool-call message, so a `debug` child can inherit the conversation. */
  messageCount: number;
  /** Status card updates that could not be delivered (the run went on without them). */
  cardFailures: number;
}

export type { ChatMessage, ToolCall };
