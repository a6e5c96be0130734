/**
 * Every activity the workflows call, in one place: the contracts they call them by (types
 * only: implementations live in activities/) and the named timeout and retry policy of each
 * group. Workflows import the proxies from here; phase classes take the same shapes as
 * constructor arguments, so unit tests hand in plain fakes.
 */
import type { Duration } from '@temporalio/common';
import {
  ActivityCancellationType,
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { AgentSetup } from '../activities/agents/agent-setup';
import type { AttachActivities } from '../activities/attach';
import type { GitHubActivities } from '../activities/github';
import type { ModelTurnInput, ModelTurnResult } from './contracts/model';
import type { RunProgress } from './contracts/run-progress';
import type { RunOutcome, StartRunInput, StartRunResult } from './contracts/run-start';
import type {
  BashInput,
  BashResult,
  FileResult,
  JobStatus,
  JobStatusInput,
  WorkspaceInput,
  WorkspaceRef,
  WorkspaceState,
} from './contracts/sandbox';
import type { EffectResult, PlanCardInput, ReplyInput, StatusCardInput, UnitThreadInput, UnitThreadResult } from './contracts/status';
import type { StartPlanResult, StartUnitResult, UnitSummary } from './contracts/unit-client';
import type { PlanActivities } from '../activities/plans';
import type { CommitResult, CommitWorkspaceInput, PrepareUnitWorkspaceInput, UnitWorkspace } from './contracts/unit-workspace';
import type { SkillActivities } from '../activities/skills';
import type { InstructionsActivities } from '../activities/repo/instructions';
import type { SpendCheckInput, SumSpendsInput } from '../activities/spend';
import type { SpendVerdict } from './contracts/spend';
import type { SpentToday } from '../agents/spend-caps';
import type { WebActivities } from '../activities/web';
import type { McpCallInput, McpCallResult, McpDiscovered, McpDiscoverInput } from './contracts/mcp-calls';
import type { BoardActivities } from '../activities/board';
import type {
  PlanInput,
  RunEnded,
  RunRecord,
  ShipUnitInput,
  SpendReservation,
  SpendReserveRequest,
  UncertainWritesFound,
  UnitState,
} from './contracts';

export type { AttachActivities, InstructionsActivities, SkillActivities, WebActivities };

/** MCP servers as tools: a server's tools for a run, one call, and the end of a run's sessions. */
export interface McpActivities {
  mcpDiscover(input: McpDiscoverInput): Promise<McpDiscovered>;
  mcpCall(input: McpCallInput): Promise<McpCallResult>;
  /** On the host of `workspace` when given (its stdio servers), else on whichever worker takes it. */
  mcpClose(input: { runId: string; workspace?: WorkspaceRef }): Promise<{ closed: number }>;
}

export interface SetupActivities {
  loadAgentSetup(): Promise<AgentSetup>;
}

/** A start's check against the spend caps: today's spend summed from Temporal, then refuse or admit. */
export interface SpendCheckActivities {
  checkSpendCaps(input: SpendCheckInput): Promise<SpendVerdict>;
}

/** The ledger's sums and looks (workflows/spend-ledger.ts), and a start's ask of the ledger (threads, units). */
export interface SpendLedgerActivities {
  sumSpends(input: SumSpendsInput): Promise<{ spent: SpentToday; byHolder: Record<string, number> }>;
  lookAtHolders(input: { holders: string[] }): Promise<{ closed: string[]; missing: string[] }>;
  reserveSpend(request: SpendReserveRequest): Promise<SpendReservation>;
}

/** A thread's look at its current run (is its workflow task stuck failing?); a unit's wait for a run it did not start itself. */
export interface RunProgressActivities {
  runProgress(input: { runId: string }): Promise<RunProgress>;
  awaitRun(input: { runId: string }): Promise<{ record?: RunRecord; ended?: string }>;
}

/** A thread starting its run through the worker's own client (eager workflow start), and reading the end of one that never said. */
export interface RunStartActivities {
  startRun(input: StartRunInput): Promise<StartRunResult>;
  runOutcome(input: { runId: string }): Promise<RunOutcome>;
  reportRunEnd(input: { threadId: string; end: RunEnded }): Promise<boolean>;
}

export interface ModelActivities {
  modelTurn(input: ModelTurnInput): Promise<ModelTurnResult>;
}

export interface SandboxActivities {
  bash(input: BashInput): Promise<BashResult>;
  readFile(input: { workspace: WorkspaceRef; path: string; offset?: number; limit?: number }): Promise<FileResult>;
  writeFile(input: { workspace: WorkspaceRef; path: string; content: string }): Promise<FileResult>;
  jobStatus(input: JobStatusInput): Promise<JobStatus>;
  closeWorkspace(input: { workspace: WorkspaceRef }): Promise<unknown>;
}

export interface WorkspacePrepareActivities {
  prepareWorkspace(input: WorkspaceInput): Promise<WorkspaceState>;
}

export interface StatusActivities {
  statusCard(input: StatusCardInput): Promise<EffectResult>;
  deliverReply(input: ReplyInput): Promise<EffectResult>;
  /** A plan's card in its conversation, edited in place. */
  planCard(input: PlanCardInput): Promise<EffectResult>;
  /** A plan unit's own conversation (in Slack a thread of its own), opened before the unit starts. */
  openUnitThread(input: UnitThreadInput): Promise<UnitThreadResult>;
}

export interface UnitWorkspaceActivities {
  prepareUnitWorkspace(input: PrepareUnitWorkspaceInput): Promise<UnitWorkspace>;
  commitWorkspace(input: CommitWorkspaceInput): Promise<CommitResult>;
  releaseWorkspace(input: WorkspaceInput): Promise<unknown>;
}

/** Which hosts hold a repository's object cache: the queue they poll, when one polls it now (activities/units/resident-queue.ts). */
export interface ResidentQueueActivities {
  residentQueue(input: { repo: string }): Promise<{ queue?: string }>;
}

export interface UnitClientActivities {
  startUnit(input: ShipUnitInput & { effectKey?: string }): Promise<StartUnitResult>;
  startPlan(input: PlanInput & { effectKey?: string }): Promise<StartPlanResult>;
  inspectUnit(input: { unitId: string }): Promise<UnitState>;
  listUnits(input: { requester?: string; repo?: string; kind?: 'unit' | 'plan' | 'run'; limit?: number }): Promise<UnitSummary[]>;
  /** A workflow's unconfirmed writes (for `resendWorkflow`). */
  findUncertainWrites(input: { workflowId: string }): Promise<UncertainWritesFound>;
}

/** Team boards (activities/board/): a run's read, rem-agent's changes, a consolidation asked for, a trajectory read. */
export type BoardActivityTypes = Pick<BoardActivities, 'readBoard' | 'changeBoard' | 'requestConsolidation' | 'readTrajectory'>;

/** The GitHub writes: each one REST call, effect-keyed, so a retry first looks for its marker. */
export type GitHubWriteActivities = Pick<
  GitHubActivities,
  | 'openOrUpdatePullRequest'
  | 'postReview'
  | 'postComment'
  | 'mergePullRequest'
  | 'createIssue'
  | 'updateIssue'
  | 'replyToReviewComment'
  | 'resolveReviewThread'
>;

const backoff = (initialInterval: Duration, maximumInterval: Duration, maximumAttempts: number) => ({
  initialInterval,
  backoffCoefficient: 2,
  maximumInterval,
  maximumAttempts,
});

/**
 * The workspace's git work, the sandbox's prepare/close/release and every GitHub call
 * heartbeat every 2 s while they run (activities/heartbeating.ts): a worker that dies mid-call
 * is noticed after this, not at the start-to-close timeout, so a kill costs seconds.
 */
const HEARTBEAT_TIMEOUT = '10 seconds';

/**
 * The named policies. A GitHub write is one REST call that GitHub answers in well under a
 * second; a worker that dies mid-write is noticed at the heartbeat timeout, and the retry then
 * looks for the marker (at-most-once writes) or repeats the write (a merge guarded by its head
 * sha, a leased push). `githubWrite` sits just above Octokit's own request timeout
 * (github.requestTimeoutMs, 20 s by default), so a slow GitHub is reported by the request itself.
 */
export const POLICIES = {
  /** The agent catalog, config and ship settings (a file read). */
  setup: { startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } },
  /** Model calls: long, heartbeating, retried with backoff on 429/5xx (non-retryable failures say why). */
  modelTurn: {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '30 seconds',
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    retry: backoff('2 seconds', '1 minute', 8),
  },
  /**
   * The closing summary after a bound (it may run past the deadline): one short turn without
   * tools, so a slow or failing model delays the settled run by minutes at most.
   */
  closingSummary: {
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: '30 seconds',
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    retry: backoff('2 seconds', '10 seconds', 2),
  },
  /**
   * A shell command is never re-run by a retry: a worker lost mid-command leaves its result
   * unknown, and the model is told so rather than having the command repeat behind its back.
   * A stop waits until the process group is really gone before the run settles.
   */
  shellCommand: {
    startToCloseTimeout: '21 minutes',
    heartbeatTimeout: '20 seconds',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { maximumAttempts: 1 },
  },
  /** Reads and writes of workspace files, a detached job's status, and ending a workspace's processes with its run. */
  workspaceFile: { startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumAttempts: 5 } },
  /**
   * web_fetch and web_search: a fetch is bounded by `web.fetch.timeoutMs` (20 s by default)
   * inside the activity; this is the backstop for a worker that dies mid-fetch. Reads are safe to retry.
   */
  webRead: { startToCloseTimeout: '2 minutes', retry: backoff('2 seconds', '30 seconds', 3) },
  /** list_skills and use_skill: reads of skill folders and the checkout. */
  skillRead: { startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumAttempts: 3 } },
  /**
   * A run's repository instructions (a few reads in its checkout's sandbox, or of the contents
   * API) and settings, before its first turn: reads, so retried; heartbeating, so a lost worker costs seconds.
   */
  repoRead: { startToCloseTimeout: '2 minutes', heartbeatTimeout: '10 seconds', retry: backoff('1 second', '30 seconds', 5) },
  /**
   * attach_file: an upload of up to 20 MB plus a thread search; a retry looks for the marker
   * first, so an unknown result is never posted twice (the activity says `unconfirmed` instead).
   */
  attach: { startToCloseTimeout: '2 minutes', retry: backoff('2 seconds', '1 minute', 6) },
  /** Status cards and replies (at-most-once by effect key). */
  delivery: { startToCloseTimeout: '30 seconds', retry: backoff('1 second', '30 seconds', 10) },
  /** A unit's checkout: clone or fetch, commit, release. */
  unitWorkspace: { startToCloseTimeout: '10 minutes', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry: backoff('2 seconds', '1 minute', 6) },
  /** A run's GitHub reads for the model (it waits: fewer attempts). */
  githubToolRead: { startToCloseTimeout: '1 minute', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry: backoff('2 seconds', '1 minute', 6) },
  /**
   * A thread's vet of a run's repository: one GET that answers GitHub's failures as data
   * (repo_not_visible, repo_unverified); a retry only covers a worker lost mid-call.
   */
  repoVet: { startToCloseTimeout: '1 minute', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry: backoff('2 seconds', '30 seconds', 3) },
  /** A unit's GitHub reads and its branch push. */
  githubUnitStep: { startToCloseTimeout: '1 minute', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry: backoff('2 seconds', '1 minute', 10) },
  githubWrite: { startToCloseTimeout: '25 seconds', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry: backoff('2 seconds', '1 minute', 10) },
  /** Preparing a workspace through the shared queue: whichever live worker takes it becomes the workspace's host. */
  workspacePrepare: {
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: backoff('1 second', '30 seconds', 5),
  },
  /** A router's model turn (the classifier, when configured): short, and a failure only routes by default. */
  routingTurn: {
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: '30 seconds',
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    retry: backoff('2 seconds', '10 seconds', 2),
  },
  /**
   * Starting an MCP server (or connecting to one) and listing its tools, bounded by its
   * `startTimeoutMs` (two minutes at most) inside the activity; a retry starts it afresh.
   */
  mcpDiscover: { startToCloseTimeout: '3 minutes', heartbeatTimeout: '20 seconds', retry: backoff('2 seconds', '10 seconds', 2) },
  /**
   * One MCP tool call, bounded by the server's `callTimeoutMs` (ten minutes at most) inside the
   * activity, which answers a hung or crashed server as data. Never retried: a call may have
   * effects, and a worker lost mid-call leaves its effect unknown, which the model is told.
   */
  mcpCall: {
    // The call's own bound (ten minutes at most) after a restart's start (two at most).
    startToCloseTimeout: '13 minutes',
    heartbeatTimeout: '20 seconds',
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    retry: { maximumAttempts: 1 },
  },
  /** Ending a run's MCP sessions on a worker (its stdio servers' processes go with them). */
  mcpClose: { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumAttempts: 3 } },
  /** A thread describing its current run (a read; a failed look is just skipped). */
  runProgress: { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumAttempts: 3 } },
  /** A thread reading how its run ended when the run never said (terminated, timed out): a describe and a result. */
  runOutcome: { startToCloseTimeout: '30 seconds', retry: backoff('1 second', '30 seconds', 10) },
  /**
   * The ledger's sums (a visibility list and the listed runs' records or status) and looks at its
   * holders, and a start's `reserve` (it waits its turn behind other starts in the ledger): reads
   * and an idempotent update (one reservation per holder), so retried.
   */
  spendLedger: { startToCloseTimeout: '1 minute', retry: backoff('1 second', '10 seconds', 5) },
  /**
   * A unit following a run an earlier execution of it started (a reset): as long as a run may
   * take, heartbeating; retried while Temporal is away, since the run may still be working.
   */
  awaitRun: {
    startToCloseTimeout: '24 hours',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
  },
  /** Starting, inspecting and listing units through the Temporal client. */
  unitClient: { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumAttempts: 5 } },
  /**
   * A board's query, a change (an update whose id is the effect key: a retry answers the first
   * result) and a consolidation asked for (signal-with-start; the board drops a repeated key).
   */
  boardClient: { startToCloseTimeout: '30 seconds', retry: backoff('1 second', '10 seconds', 5) },
  /** Reading a finished unit's or thread's histories for rem-agent (several executions and runs). */
  trajectoryRead: { startToCloseTimeout: '2 minutes', retry: backoff('2 seconds', '30 seconds', 3) },
} as const satisfies Record<string, ActivityOptions>;

/**
 * Local activities: run by the worker inside the workflow task that asks, with no task-queue
 * round trip, for short reads on the path to a run's first model turn.
 */
export const LOCAL_POLICIES = {
  /** The agent setup a thread decides each message with (a file read and the sandbox's readiness). */
  setup: { startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 5 } },
  /** A plan asked for in chat, read as the CLI reads a plan file (YAML and its checks, no I/O). */
  planRead: { startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 3 } },
  /** A start's spend-cap check: a visibility list and the listed runs' records or status (closed ones are remembered). */
  spendCheck: { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumAttempts: 3 } },
  /** Which hosts hold a repository's cache (one describe of a task queue); a failed look only sends the checkout to the shared queue. */
  residentQueue: { startToCloseTimeout: '10 seconds', retry: { initialInterval: '1 second', maximumAttempts: 2 } },
  /**
   * A thread starting its run (one start request; the run's first task comes back to this worker in
   * the answer). Retried until Temporal takes it, as the thread's own task would be: a retry after a
   * lost answer finds the run it started (activities/runs/run-start.ts).
   */
  startRun: { startToCloseTimeout: '30 seconds', retry: backoff('1 second', '30 seconds', 20) },
  /** A run telling its thread its end (one signal, client to thread); past these tries the thread's run watch finds the end. */
  reportRunEnd: { startToCloseTimeout: '30 seconds', retry: backoff('1 second', '10 seconds', 6) },
} as const satisfies Record<string, LocalActivityOptions>;

export const setup = proxyActivities<SetupActivities>(POLICIES.setup);
export const localSetup = proxyLocalActivities<SetupActivities>(LOCAL_POLICIES.setup);
export const plans = proxyLocalActivities<PlanActivities>(LOCAL_POLICIES.planRead);
export const spendCheck = proxyLocalActivities<SpendCheckActivities>(LOCAL_POLICIES.spendCheck);
export const residentQueues = proxyLocalActivities<ResidentQueueActivities>(LOCAL_POLICIES.residentQueue);
export const spendLedger = proxyActivities<SpendLedgerActivities>(POLICIES.spendLedger);
export const runProgress = proxyActivities<RunProgressActivities>(POLICIES.runProgress);
export const runStarts = proxyLocalActivities<Pick<RunStartActivities, 'startRun'>>(LOCAL_POLICIES.startRun);
export const runOutcomes = proxyActivities<Pick<RunStartActivities, 'runOutcome'>>(POLICIES.runOutcome);
export const runEndReports = proxyLocalActivities<Pick<RunStartActivities, 'reportRunEnd'>>(LOCAL_POLICIES.reportRunEnd);
export const runWaits = proxyActivities<Pick<RunProgressActivities, 'awaitRun'>>(POLICIES.awaitRun);
export const models = proxyActivities<ModelActivities>(POLICIES.modelTurn);
export const closingModels = proxyActivities<ModelActivities>(POLICIES.closingSummary);
export const routingModels = proxyActivities<ModelActivities>(POLICIES.routingTurn);
export const shell = proxyActivities<Pick<SandboxActivities, 'bash'>>(POLICIES.shellCommand);
export const files = proxyActivities<Omit<SandboxActivities, 'bash' | 'closeWorkspace'>>(POLICIES.workspaceFile);
export const workspaces = proxyActivities<Pick<SandboxActivities, 'closeWorkspace'>>(POLICIES.workspaceFile);
export const status = proxyActivities<StatusActivities>(POLICIES.delivery);
export const unitWorkspace = proxyActivities<UnitWorkspaceActivities>(POLICIES.unitWorkspace);
export const githubToolReads = proxyActivities<GitHubActivities>(POLICIES.githubToolRead);
export const githubUnitSteps = proxyActivities<GitHubActivities>(POLICIES.githubUnitStep);
export const repoVetting = proxyActivities<Pick<GitHubActivities, 'vetRepository'>>(POLICIES.repoVet);
export const githubWrites = proxyActivities<GitHubWriteActivities>(POLICIES.githubWrite);
export const units = proxyActivities<UnitClientActivities>(POLICIES.unitClient);
export const web = proxyActivities<WebActivities>(POLICIES.webRead);
export const skills = proxyActivities<SkillActivities>(POLICIES.skillRead);
export const attach = proxyActivities<AttachActivities>(POLICIES.attach);
export const repoReads = proxyActivities<InstructionsActivities & Pick<GitHubActivities, 'repoSettings'>>(POLICIES.repoRead);
export const workspacePrepare = proxyActivities<WorkspacePrepareActivities>(POLICIES.workspacePrepare);
export const mcp = mcpProxies(POLICIES);
export const boards = proxyActivities<Omit<BoardActivityTypes, 'readTrajectory'>>(POLICIES.boardClient);
export const trajectories = proxyActivities<Pick<BoardActivityTypes, 'readTrajectory'>>(POLICIES.trajectoryRead);

/** The MCP activities with their three policies (a proxy has no own keys to spread: each call goes through its own). */
function mcpProxies(policies: Pick<typeof POLICIES, 'mcpDiscover' | 'mcpCall' | 'mcpClose'>): McpActivities {
  const discover = proxyActivities<Pick<McpActivities, 'mcpDiscover'>>(policies.mcpDiscover);
  const call = proxyActivities<Pick<McpActivities, 'mcpCall'>>(policies.mcpCall);
  const close = proxyActivities<Pick<McpActivities, 'mcpClose'>>(policies.mcpClose);
  return {
    mcpDiscover: (input) => discover.mcpDiscover(input),
    mcpCall: (input) => call.mcpCall(input),
    mcpClose: (input) => close.mcpClose(input),
  };
}

/**
 * How long a call on a workspace's host queue may wait for that host to pick it up. A live
 * worker polls its host queue all the time, so a call waits only while the host's activity
 * slots are full; past this, the host is taken for dead (schedule-to-start timeouts are never
 * retried) and the run prepares a fresh workspace elsewhere. Together with the heartbeat
 * timeouts below, this bounds how long a dead host goes unnoticed (docs/operations.md).
 */
export const HOST_SCHEDULE_TO_START = '15 seconds';

const onHost = <P extends ActivityOptions>(policy: P, taskQueue: string): P & { taskQueue: string; scheduleToStartTimeout: Duration } => ({
  ...policy,
  taskQueue,
  scheduleToStartTimeout: HOST_SCHEDULE_TO_START,
});

/**
 * The named policies of the calls that go to the host holding a workspace: the shared ones
 * with a schedule-to-start bound. The file reads and writes and the skill reads heartbeat on the
 * worker (activities/index.ts), so a host lost mid-call is noticed at their heartbeat timeout too.
 */
export const HOST_POLICIES = {
  shellCommand: POLICIES.shellCommand,
  workspaceFile: { ...POLICIES.workspaceFile, heartbeatTimeout: HEARTBEAT_TIMEOUT },
  /** A probe after a heartbeat timeout: is the host still there (a restarted worker on the same disk is)? One attempt. */
  hostProbe: { startToCloseTimeout: '1 minute', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry: { maximumAttempts: 1 } },
  skillRead: { ...POLICIES.skillRead, heartbeatTimeout: HEARTBEAT_TIMEOUT },
  repoRead: POLICIES.repoRead,
  /** attach_file keeps heartbeat details of its own (uncertain uploads), so no heartbeat timeout: schedule-to-start only. */
  attach: POLICIES.attach,
  unitWorkspace: POLICIES.unitWorkspace,
  githubPush: POLICIES.githubUnitStep,
  mcpDiscover: POLICIES.mcpDiscover,
  mcpCall: POLICIES.mcpCall,
  mcpClose: POLICIES.mcpClose,
} as const satisfies Record<string, ActivityOptions>;

/** The activities of one workspace's host, on its own task queue (`prepareWorkspace` and `prepareUnitWorkspace` name it). */
export function hostBound(taskQueue: string) {
  return {
    shell: proxyActivities<Pick<SandboxActivities, 'bash'>>(onHost(HOST_POLICIES.shellCommand, taskQueue)),
    files: proxyActivities<Omit<SandboxActivities, 'bash' | 'closeWorkspace'>>(onHost(HOST_POLICIES.workspaceFile, taskQueue)),
    workspaces: proxyActivities<Pick<SandboxActivities, 'closeWorkspace'>>(onHost(HOST_POLICIES.workspaceFile, taskQueue)),
    probe: proxyActivities<WorkspacePrepareActivities>(onHost(HOST_POLICIES.hostProbe, taskQueue)),
    skills: proxyActivities<SkillActivities>(onHost(HOST_POLICIES.skillRead, taskQueue)),
    instructions: proxyActivities<InstructionsActivities>(onHost(HOST_POLICIES.repoRead, taskQueue)),
    attach: proxyActivities<AttachActivities>(onHost(HOST_POLICIES.attach, taskQueue)),
    unitWorkspace: proxyActivities<Pick<UnitWorkspaceActivities, 'commitWorkspace' | 'releaseWorkspace'>>(
      onHost(HOST_POLICIES.unitWorkspace, taskQueue),
    ),
    github: proxyActivities<Pick<GitHubActivities, 'pushBranch'>>(onHost(HOST_POLICIES.githubPush, taskQueue)),
    // A stdio MCP server is a process in the workspace's sandbox: its calls go to the host that holds it.
    mcp: mcpProxies({
      mcpDiscover: onHost(HOST_POLICIES.mcpDiscover, taskQueue),
      mcpCall: onHost(HOST_POLICIES.mcpCall, taskQueue),
      mcpClose: onHost(HOST_POLICIES.mcpClose, taskQueue),
    }),
  };
}

export type HostBoundActivities = ReturnType<typeof hostBound>;

/**
 * A checkout sent to the queue of the hosts that hold the repository's cache: any of them may
 * take it, within the same schedule-to-start bound as a host's own queue (then the shared queue).
 */
export function residentBound(taskQueue: string) {
  return proxyActivities<Pick<UnitWorkspaceActivities, 'prepareUnitWorkspace'>>(onHost(HOST_POLICIES.unitWorkspace, taskQueue));
}
