/**
 * The contract of `agentRunWorkflow`: its input, state and result, and the `status` query
 * (it also takes `steer` and `stop`, see common.ts). Front ends, the CLI and tests import
 * these without pulling in workflow code.
 */
import { defineQuery } from '@temporalio/workflow';
import type { ChatMessage, ToolCall, TurnPurpose } from './model';
import type { Profile } from './profile';
import type { ReplyTarget, Requester, SteerInput } from './common';
import type { UncertainWrite } from './resend';
import type { EarlierReview } from './unit';
import type { FindingRef } from './findings';
import type { McpToolSchema } from './mcp';
import type { RunCost, RunOutcome, RunStatus, SetupOutcome, SpendCap, StatusStep, TokenTotals } from './run-status';
import { workflowType } from './workflow-type';

/** One model turn's usage and, where the model has a price, its cost. */
export interface TurnUsage {
  turn: number;
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h?: number;
  costUsd?: number;
  /** What the same tokens would have cost with no prompt cache. */
  costWithoutCacheUsd?: number;
  /** Absent for a step of the run; `compaction` and `summary` turns are counted too (not against the turn guard, for a compaction). */
  purpose?: TurnPurpose;
}

/** One MCP server's use in a run. */
export interface McpServerUsage {
  calls: number;
  errors: number;
  /** Characters its answers had before they were bounded. */
  chars: number;
}

/**
 * A run's MCP tools, discovered once when it starts and carried from then on, so the tool list
 * (and the prompt block naming them) stays the same byte for byte across its turns.
 */
export interface McpRunTools {
  tools: McpToolSchema[];
  /** Servers or tools left out, and why. */
  problems: string[];
  /** The system prompt's block about them (workflows/run/mcp-tools.ts), fixed at discovery. */
  block: string;
  usage: Record<string, McpServerUsage>;
}

/**
 * How the router picked a run's agent when the message did not name one: the rule (or the
 * classifier) and why, in words, shown on the run's card; a classifier's turn is counted in the
 * run's usage (`purpose: routing`).
 */
export interface RunRouting {
  agent: string;
  /** `review-request`, `code-change`, `compound-read-only`, `repo-question`, `research-question`, `classifier`, `default`. */
  reason: string;
  note?: string;
  /** The classifier's model turn, when one was asked (its tokens and cost). */
  usage?: TurnUsage;
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
  /** The paths in play (a PR's changed files, the files a round works on): the AGENTS.md nearest to each is loaded first. */
  paths?: string[];
  /**
   * The task queue of the host that holds that workspace, when it is already prepared (a
   * parent's workspace for a role child, a unit's checkout); absent: the run prepares it.
   */
  workspaceHost?: string;
  /** Set for child runs started by the `task` tool. */
  parent?: { workflowId: string; depth: number };
  /**
   * `thread`: the run was started by its thread through a local activity (eager workflow start),
   * not as its child, so it tells the thread its end by the `runEnded` signal (workflows/thread/run-start.ts).
   */
  reportEnd?: 'thread';
  /**
   * `unit`: a ship unit's coding or review run; the unit prepared the checkout and delivers
   * `submit_review` / `submit_description` itself. Absent on a direct run, which prepares its
   * checkout and delivers them (run/direct-work.ts).
   */
  submitsTo?: 'unit';
  /** The money bound of this run, from the spend caps at its start (absent: none). */
  spendCap?: SpendCap;
  /**
   * A direct review of a PR its conversation reviewed before: that review's commit and findings,
   * so this one reviews what changed since and says which findings the push resolved.
   */
  earlierReview?: EarlierReview;
  /**
   * The effect key a direct review is posted under, before `/<commit>` (absent: the run's own id): a
   * conversation's automatic reviews share one, so a commit is reviewed once whichever run posts it.
   */
  reviewKey?: string;
  /**
   * An automatic review (the repository's settings asked for it, no one in words): the review it
   * posts is its answer, and its thread posts no other (its final card says so).
   */
  automaticReview?: boolean;
  /** How the router picked the agent (absent: named by the message, sticky, or a child run). */
  routing?: RunRouting;
  /**
   * The team board this run reads into its system prompt when its repository's settings name none:
   * a Slack channel's board (a repository's is found from its `.switchboard.yml`). For a rem-agent
   * run, the board it writes with `context_board`, and whether its changes are kept (docs/board.md).
   */
  board?: RunBoardRef;
  /**
   * A ship unit's coding round that follows a review: the open findings the run answers, each
   * once, with `submit_dispositions` (it is told before it may finish without). Absent: none.
   */
  findings?: FindingRef[];
  /** Carried across continue-as-new; absent on the first start. */
  carry?: RunCarry;
}

/** The board a run reads, or (`writes`) a rem-agent run consolidates for. */
export interface RunBoardRef {
  id: string;
  maxPromptChars?: number;
  /** A rem-agent run's: its changes are kept at once (a keeper's work) or proposed, on behalf of whom. */
  writes?: { keeps: boolean; onBehalfOf: string };
}

/** The board a run read before its first turn: its id, how many kept entries, the ones shown, and the prompt block. */
export interface RunBoard {
  id: string;
  entries: number;
  shown: string[];
  block?: string;
}

/** The state that survives continue-as-new (the conversation, not the history). */
export interface RunCarry {
  startedAt: number;
  deadline: number;
  messages: ChatMessage[];
  turns: number;
  /** Older carries have input and output only. */
  tokens: TokenTotals | { input: number; output: number };
  usage?: TurnUsage[];
  cost?: RunCost;
  toolCalls: ToolCallRecord[];
  children: ChildRecord[];
  pendingSteers: SteerInput[];
  jobWaits: { polls: number; waitedMs: number };
  taskCounter: number;
  statusText?: string;
  submissions: Record<string, unknown>;
  /** Leading messages that are the task (never compacted); absent in carries from before compaction. */
  taskLength?: number;
  contextWindow?: number;
  compactions?: number;
  /** A direct review or coding run's checkout and what it delivered (absent for other runs). */
  direct?: DirectWorkState;
  /** The host queue of the run's workspace, so the run goes on where its files are. */
  workspaceHost?: string;
  /** Where the last request wrote the prompt cache (leading messages), so the next reads it exactly. */
  cacheWritten?: number;
  /** At-most-once writes of this run that ended `unconfirmed` (absent: none). */
  uncertain?: UncertainWrite[];
  /** The status card's key generation past an unconfirmed post, and the keys it may still turn up under (absent: generation 0). */
  card?: { generation: number; earlier: string[] };
  /** What the run brought from its repository before its first turn (absent: nothing, or a run from before). */
  repoContext?: RepoContext;
  /** The MCP tools discovered at the start (absent: none attached). */
  mcp?: McpRunTools;
  /** The team board read before the first turn (absent: none). */
  board?: RunBoard;
  /** The checklist `update_status` last set (absent: none). */
  steps?: StatusStep[];
  /** How often the run was told it had not answered its findings before finishing (absent: never). */
  reminded?: number;
}

/** What a run brought from its repository before its first turn (run/repo-context.ts). */
export interface RepoContext {
  repo: string;
  /** The instruction files loaded, in prompt order, and the block the system prompt carries (the same bytes every turn). */
  instructions?: { files: string[]; source: 'checkout' | 'github'; block: string; skipped?: string[] };
  /** The setup commands of the repository's settings, run in the checkout's sandbox (absent: none, or no checkout). */
  setup?: SetupOutcome;
}

/** What a direct review or coding run works on and what it delivered (run/direct-work.ts). */
export interface DirectWorkState {
  mode: 'review' | 'coding';
  repo: string;
  pullRequest?: number;
  /** The commit checked out (the PR head for a review; the start of the branch for coding). */
  headSha: string;
  /** The branch the coding run pushes (the PR's head branch, or a new one). */
  branch?: string;
  /** The last commit this run pushed to `branch`; the next push expects the branch there. */
  pushedSha?: string;
  base: string;
  /** The checkout on the worker's disk (where the push runs). */
  path: string;
  /** The review gate (`review.addressSeverity`). */
  gate: 'blocking' | 'major' | 'minor' | 'nit';
  /** The review or pull request this run delivered, with the effect's status. */
  delivered?: { status: 'confirmed' | 'unconfirmed' | 'refused'; what: string; url?: string; number?: number; sha?: string };
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
  /** The task call's `description`: what the task is for. */
  description?: string;
  mode: 'sync' | 'background';
  outcome?: RunOutcome;
  startedAt: number;
  endedAt?: number;
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
  /** Who stopped the run and why, when it was stopped. */
  stop?: { by?: string; reason?: string };
  turns: number;
  tokens: TokenTotals;
  /** Each model turn's tokens (and cost), in order. */
  usage: TurnUsage[];
  cost: RunCost;
  toolCalls: ToolCallRecord[];
  children: ChildRecord[];
  jobWaits: { polls: number; waitedMs: number };
  finalText: string;
  /**
   * The closing summary: what was done and what is left, written in one last turn without
   * tools when the budget, the turn guard or the token cap ended the run (also `finalText`).
   */
  summary?: string;
  /** Structured results from workflow-native tools (`submit_review`, `submit_description`). */
  submissions: Record<string, unknown>;
  startedAt: number;
  endedAt: number;
  /** The last tool-call message, so a `debug` child can inherit the conversation. */
  messageCount: number;
  /** How often older turns were summarised to keep the conversation inside the model's window. */
  compactions?: number;
  /** Input tokens served from the prompt cache, over all input tokens (0 to 1). */
  cacheShare?: number;
  /** The run's money bound, when a spend cap applied. */
  spendCap?: SpendCap;
  /** Status card updates that could not be delivered (the run went on without them). */
  cardFailures: number;
  /** The host queue the run's workspace was on at the end (a unit commits there). */
  workspaceHost?: string;
  /** How often the run's workspace was lost with its host (the model was told each time). */
  workspaceLosses?: number;
  /**
   * Writes the run made that could not be confirmed (its tools' issues, comments and reviews, its
   * card's last update), with the text that may be missing; the thread or unit that started it
   * lists them on, and `switchboard resend` repairs them there. Absent: none.
   */
  unconfirmed?: UncertainWrite[];
  /** A direct review run: the commit it reviewed and how its review's delivery went (absent: no review delivered). */
  reviewed?: { commitSha: string; status: 'confirmed' | 'unconfirmed' | 'refused' };
  /** Each MCP server's calls, errors and answer sizes (absent: none attached); the tools offered and what was left out. */
  mcp?: { usage: Record<string, McpServerUsage>; tools: string[]; problems: string[] };
  /** The team board the run read into its system prompt: its id and the kept entries shown (absent: none). */
  board?: { id: string; entries: number; shown: string[] };
}

export type { ChatMessage, ToolCall };

/** The run's live status (phase, turns, tokens, budget); answered while it runs and after. */
export const runStatusQuery = defineQuery<RunStatus>('status');

export type AgentRunWorkflow = (input: RunInput) => Promise<RunRecord>;
/**
 * Started by its thread through a local activity (`run:<thread-id>:<n>`; before `thread-starts-run-eagerly`, as the
 * thread's child), or by a unit or a parent run as a child (`<parent-id>/task-<k>`).
 */
export const agentRunWorkflowType = workflowType<AgentRunWorkflow>('agentRunWorkflow');
