import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  patched,
  setCurrentDetails,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  attach,
  boards,
  closingModels,
  files,
  githubToolReads,
  githubUnitSteps,
  hostBound,
  githubWrites,
  mcp,
  models,
  setup,
  shell,
  skills,
  status,
  units,
  unitWorkspace,
  web,
  workspacePrepare,
  workspaces,
  repoVetting,
  repoReads,
  residentBound,
  residentQueues,
} from './activity-proxies';
import {
  agentRunWorkflowType,
  failure,
  runStatusQuery,
  steerSignal,
  steerUpdate,
  stopSignal,
  type AgentRunWorkflow,
  type RunInput,
  type RunRecord,
  type SteerInput,
  type StopInput,
} from './contracts';
import { DirectWork, directMode } from './run/direct-work';
import { preferCacheHost } from './run/resident-host';
import { commandReport } from './run/command-report';
import { CANCEL_STOP, cancelAsStop, type OnCancel } from './cancel-as-stop';
import type { ToolContext } from './run/executors';
import { RunControl, type WorkflowClock } from './run/run-control';
import { runDetails } from './run/run-details';
import { RunLoop } from './run/run-loop';
import { RunState } from './run/run-state';
import { StatusCard } from './run/status-card';
import { TaskChildren } from './run/task-children';
import { McpTools } from './run/mcp-tools';
import { executeToolCalls } from './run/tool-dispatch';
import { HOST_QUEUES_PATCH, WorkspaceHost } from './run/workspace-host';
import { RepoContextLoader, RUN_REPO_CONTEXT, runRepository } from './run/repo-context';
import { boardToRead, readRunBoard, RUN_READS_BOARD } from './run/board-read';
import { InputGuard } from './input-guard';
import { reportingEnd } from './run/report-end';
import { UncertainWrites } from './effects/uncertain-writes';
import type { GitHubWriteActivities } from './activity-proxies';
import { Agent, Outcome, Phase, Repo, Requester, SwitchboardKind, Thread } from './search-attributes';

/**
 * One use of one agent for one request: model turns, tool calls checked against the
 * toolset, budgets (deadline timer, turn guard, token cap), steer and stop, the status card,
 * child runs, and the record as its result. This function holds the message handlers and the
 * timers; the turn loop, the task children and the card are plain classes in run/.
 */
export async function agentRunWorkflow(input: RunInput): Promise<RunRecord> {
  const run = () => cancelAsStop((onCancel) => agentRun(input, onCancel));
  // A run its thread started by a local activity (not as a child) tells the thread its end itself.
  return input.reportEnd === 'thread' ? reportingEnd(input.threadId, workflowInfo().workflowId, run) : run();
}

async function agentRun(input: RunInput, onCancel: OnCancel): Promise<RunRecord> {
  const runId = workflowInfo().workflowId;
  const { profile } = input;
  const clock: WorkflowClock = { now: () => Date.now(), condition };
  const state = new RunState(input, Date.now());
  const control = new RunControl(state, clock.now);
  let inFlight: CancellationScope | undefined;
  let inFlightAfterDeadline = false;
  // Every steer and stop is checked whole first (contracts/inputs.ts); a malformed signal is dropped and counted.
  const guard = new InputGuard('agentRunWorkflow', () => setCurrentDetails(runDetails(state, guard.note())));
  // The run's own at-most-once writes that end unconfirmed (its tools' issues, comments and reviews,
  // its card's last update) are listed with their text, said in the conversation, and handed to
  // the thread or unit in the record, where `switchboard resend` repairs them. Runs recorded
  // before this listed nothing and kept one card key.
  const listsUncertain = patched(RUN_LISTS_UNCERTAIN_WRITES);
  const uncertain = new UncertainWrites(
    state.uncertain,
    { githubWrites, status },
    {
      now: () => Date.now(),
      workflowId: listingWorkflow(runId, input),
      notify: async (write, text) => {
        await CancellationScope.nonCancellable(() =>
          status.deliverReply({ effectKey: `${write.effectKey}/notice`, replyTarget: input.replyTarget, text }),
        );
      },
    },
  );
  const recorded = uncertain.recording().githubWrites;
  const runWrites: GitHubWriteActivities = listsUncertain
    ? {
        postComment: recorded.postComment,
        postReview: recorded.postReview,
        openOrUpdatePullRequest: recorded.openOrUpdatePullRequest,
        createIssue: recorded.createIssue,
        replyToReviewComment: recorded.replyToReviewComment,
        resolveReviewThread: (resolve) => githubWrites.resolveReviewThread(resolve),
        updateIssue: (update) => githubWrites.updateIssue(update),
        mergePullRequest: (merge) => githubWrites.mergePullRequest(merge),
      }
    : githubWrites;
  const card = new StatusCard({
    repairs: listsUncertain,
    lost: (call, result) => uncertain.note({ activity: 'statusCard', input: call }, result),
    runId,
    replyTarget: input.replyTarget,
    state,
    status,
    clock,
    nonCancellable: (work) => CancellationScope.nonCancellable(work),
    onChange: () => setCurrentDetails(runDetails(state, guard.note())),
  });

  setHandler(runStatusQuery, () => state.status(runId, Date.now()));
  const acceptSteer = (steer: SteerInput) => {
    state.pendingSteers.push({ text: steer.text.trim(), ...(steer.by ? { by: steer.by } : {}) });
    card.touch();
  };
  guard.signal(steerSignal, (steer) => {
    if (!state.finished) acceptSteer(steer);
  });
  guard.update(
    steerUpdate,
    (steer) => {
      acceptSteer(steer);
      return { accepted: true as const, pending: state.pendingSteers.length };
    },
    {
      code: 'steer_rejected',
      also: () => {
        if (state.finished) throw failure('steer_rejected', `the run has finished (${state.outcome})`);
      },
    },
  );
  const stopRun = (stop: StopInput | undefined) => {
    if (state.finished || control.stopRequest) return;
    control.stopRequest = stop ?? {};
    inFlight?.cancel();
  };
  guard.signal(stopSignal, stopRun);
  onCancel(() => stopRun(CANCEL_STOP));

  upsertSearchAttributes([
    { key: SwitchboardKind, value: 'run' },
    { key: Agent, value: profile.agent },
    { key: Thread, value: input.threadId },
    { key: Requester, value: input.requester.id },
    { key: Phase, value: 'running' },
    ...(profile.repo ? [{ key: Repo, value: profile.repo.value }] : []),
  ]);

  const deadlineScope = new CancellationScope();
  deadlineScope
    .run(async () => {
      await sleep(state.remainingMs(Date.now()));
      control.budgetOver = true;
      // Work meant to run past the deadline (the closing summary) may have started a moment before
      // this timer fired (the loop saw the deadline first): it is spared. Runs recorded before
      // the marker cancelled it.
      if (inFlightAfterDeadline && patched(DEADLINE_SPARES_AFTER_DEADLINE_WORK)) return;
      inFlight?.cancel();
    })
    .catch(() => undefined);
  card.start();

  /** Runs `work` so that a stop or the deadline can cancel it; undefined when cancelled. */
  const cancellable = async <T>(work: () => Promise<T>, options: { afterDeadline?: boolean } = {}): Promise<T | undefined> => {
    if (control.stopRequest || (!options.afterDeadline && control.pastDeadline())) return undefined;
    const scope = new CancellationScope();
    inFlight = scope;
    inFlightAfterDeadline = options.afterDeadline ?? false;
    try {
      return await scope.run(work);
    } catch (error) {
      if (isCancellation(error)) return undefined;
      throw error;
    } finally {
      inFlight = undefined;
      inFlightAfterDeadline = false;
    }
  };

  // The workspace lives on one host: its calls go to that host's queue (histories from before
  // host queues replay on the shared queue, as they were recorded).
  const workspace = { key: workspaceKeyFor(input, runId), network: profile.machine !== 'none' };
  const host = new WorkspaceHost({
    workspace,
    routed: patched(HOST_QUEUES_PATCH),
    ...((input.carry?.workspaceHost ?? input.workspaceHost) ? { hostQueue: input.carry?.workspaceHost ?? input.workspaceHost } : {}),
    shared: { shell, files, skills, attach, workspaces, mcp, instructions: repoReads },
    prepare: workspacePrepare,
    onHost: hostBound,
  });

  // The MCP servers the admission let this run use: their tools are discovered once, before the first turn.
  const mcpTools = profile.mcp?.servers.length ? new McpTools({ runId, state, workspace, activities: host.activities.mcp }) : undefined;

  const children = new TaskChildren({
    runId,
    state,
    control,
    clock,
    setup,
    workspaceKey: workspaceKeyFor(input, runId),
    workspaceHost: () => host.ensure(),
    vet: (request) => repoVetting.vetRepository(request),
    patched,
    startRun: (workflowId, child, staticSummary) =>
      startChild(agentRunWorkflowType, {
        workflowId,
        args: [child],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        staticSummary,
      }),
  });
  const tools: ToolContext = {
    state,
    workspace,
    activities: { ...host.activities, githubReads: githubToolReads, githubWrites: runWrites, units, setup, web, boards },
    workspaceLoss: () => ({ losses: host.losses, ...(host.notice ? { notice: host.notice } : {}) }),
    touchCard: () => card.touch(),
    remainingMs: () => state.remainingMs(Date.now()),
    runTask: (call, args) => children.start(call, args),
    waitForTask: (call, jobId) => children.wait(call, jobId),
    sleep,
    signal: (workflowId, definition, ...args) => getExternalWorkflowHandle(workflowId).signal(definition, ...args),
    effectKey: (call) => `${runId}/${call.name}/${state.turns}.${callIndex(call)}`,
    patched,
    ...(mcpTools ? { mcp: mcpTools } : {}),
  };
  // A direct review or coding run checks out its PR or branch and delivers its own submission.
  const mode = directMode(input);
  const direct =
    mode && patched('direct-review-and-coding')
      ? new DirectWork({
          runId,
          state,
          workspaceKey: tools.workspace.key,
          mode,
          // The checkout is made on whichever host takes it; the run's calls, the commit and the push follow it there.
          activities: {
            setup,
            github: {
              githubPullGet: (pull) => githubUnitSteps.githubPullGet(pull),
              pushBranch: (push) => (host.queue ? hostBound(host.queue).github : githubUnitSteps).pushBranch(push),
            },
            workspace: {
              prepareUnitWorkspace: async (prepare) => {
                const prepared = await preferCacheHost({
                  shared: unitWorkspace,
                  lookup: residentQueues,
                  onQueue: residentBound,
                  patched,
                }).prepareUnitWorkspace(prepare);
                host.adopt(prepared.hostTaskQueue);
                return prepared;
              },
              commitWorkspace: (commit) => (host.queue ? hostBound(host.queue).unitWorkspace : unitWorkspace).commitWorkspace(commit),
            },
            githubWrites: runWrites,
          },
        })
      : undefined;
  if (direct) {
    tools.direct = direct;
    if (!input.carry) {
      const problem = await cancellable(() => direct.prepare());
      if (problem) {
        state.finalText = `Not started: ${problem}.`;
        state.finish('failed', problem);
      }
    }
  }
  // Before the first turn: the repository's instructions into the system prompt, its setup in the checkout.
  const repo = runRepository(state);
  let loader: RepoContextLoader | undefined;
  if (!input.carry && repo && !state.finished && patched(RUN_REPO_CONTEXT)) {
    loader = new RepoContextLoader({
      state,
      workspace,
      // A unit's runs and direct runs work in a checkout of the repository; other runs clone it themselves, if at all.
      checkout: input.submitsTo === 'unit' || state.direct !== undefined,
      activities: { settings: repoReads, instructions: host.activities.instructions!, shell: host.activities.shell },
      touchCard: () => card.touch(),
    });
    await cancellable(() => loader!.load(repo));
  }
  // The team board's kept entries into the system prompt, once (its repository's, or its channel's).
  const board = input.carry ? undefined : boardToRead(input, loader?.settings?.settings.board);
  if (board && !state.finished && patched(RUN_READS_BOARD)) {
    await cancellable(() => readRunBoard(state, board, boards));
    card.touch();
  }
  if (mcpTools && !state.finished) await cancellable(() => mcpTools.discover());
  const callIndex = (call: { id: string }): number => {
    const last = state.messages[state.messages.length - 1];
    return last?.role === 'assistant' ? last.toolCalls.findIndex((candidate) => candidate.id === call.id) : -1;
  };

  await new RunLoop({
    runId,
    state,
    control,
    clock,
    card,
    children,
    models,
    closingModels,
    patched,
    executeTools: (calls) => executeToolCalls(tools, calls),
    cancellable,
    continueAsNewSuggested: () => workflowInfo().continueAsNewSuggested,
    continueAsNew: (carry) =>
      continueAsNew<AgentRunWorkflow>({ ...input, carry: { ...carry, ...(host.queue ? { workspaceHost: host.queue } : {}) } }),
  }).run();

  deadlineScope.cancel();
  if (direct) state.finalText = direct.answer(state.finalText);
  // A command runner's answer is decided by code: one line on success, the whole output on failure.
  if (profile.result === 'command') state.finalText = commandReport(state.messages, state.finalText);
  if (mcpTools) await CancellationScope.nonCancellable(() => mcpTools.close()).catch(() => undefined);
  await closeOwnWorkspace();
  await card.settle(true);
  upsertSearchAttributes([
    { key: Phase, value: 'finished' },
    { key: Outcome, value: state.outcome ?? 'failed' },
  ]);
  return {
    ...state.record(runId, Date.now()),
    ...(host.queue ? { workspaceHost: host.queue } : {}),
    ...(host.losses > 0 ? { workspaceLosses: host.losses } : {}),
  };

  /**
   * Every process the run started in its workspace ends with the run, however it detached
   * (the files stay for the thread's next run). A role child shares its parent's workspace
   * and leaves it to the parent. An agent child's workspace is its own (keyed by its run id) and
   * nothing comes back to it, so it is released, files and all, on the host that holds it. (Only
   * agent children in a session of their own hold a shell, task-children.ts AGENT_CHILD_OWN_SESSION;
   * before that no agent child reached this point, so no history holds the old branch.)
   */
  async function closeOwnWorkspace(): Promise<void> {
    if (input.parent && profile.kind === 'role') return;
    if (!SANDBOX_COMMAND_TOOLS.some((tool) => profile.tools.includes(tool))) return;
    if (!patched('close-workspace-at-run-end')) return;
    if (input.parent && profile.kind === 'agent') {
      const release = host.queue ? hostBound(host.queue).unitWorkspace : unitWorkspace;
      await CancellationScope.nonCancellable(() => release.releaseWorkspace({ workspace })).catch(() => undefined);
      return;
    }
    await CancellationScope.nonCancellable(() => host.close()).catch(() => undefined);
  }
}

/** The `patched()` id of a run that lists its own unconfirmed writes and repairs an unconfirmed status card (docs/versioning.md). */
export const RUN_LISTS_UNCERTAIN_WRITES = 'run-lists-uncertain-writes';

/**
 * Where a run's unconfirmed writes end up listed (and are resent): a unit's run in its unit, any
 * other run in its thread (a task child's go through its parent).
 */
function listingWorkflow(runId: string, input: RunInput): string {
  const unit = /^(unit:[^/]+\/[^/]+)\//.exec(runId);
  return unit ? unit[1] : input.threadId;
}

/** The `patched()` id of a deadline that no longer cancels work meant to run past it (the closing summary). */
export const DEADLINE_SPARES_AFTER_DEADLINE_WORK = 'deadline-spares-after-deadline-work';

/** Tools that run commands in the workspace's sandbox. */
const SANDBOX_COMMAND_TOOLS = ['bash', 'grep', 'find_files', 'list_directory'];

/**
 * A run works in its thread's workspace (or the unit's checkout); a role child shares its
 * parent's, and an agent child started by `task` gets a cold one of its own.
 */
function workspaceKeyFor(input: RunInput, runId: string): string {
  if (input.parent && input.profile.kind === 'agent') return runId;
  return input.workspaceKey ?? input.threadId;
}
