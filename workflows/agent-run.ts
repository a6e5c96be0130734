import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  continueAsNew,
  isCancellation,
  ParentClosePolicy,
  patched,
  proxyActivities,
  rootCause,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { ToolCall, ToolResult } from '../activities/models/types';
import type { AgentSetup } from '../activities/agents/agent-setup';
import { allowedModels, buildSystemPrompt, checkModelChoice, resolveRoleProfile, resolveTaskTarget, authorize } from '../agents';
import { modelToolSchemas } from '../tools';
import {
  agentRunWorkflowType,
  failure,
  runStatusQuery,
  steerSignal,
  steerUpdate,
  stopSignal,
  type ChildRecord,
  type RunInput,
  type RunRecord,
  type SteerInput,
  type StopInput,
} from './contracts';
import { models, status as statusActivities, workspaces } from './run/activities';
import { RunState } from './run/run-state';
import { executeToolCalls } from './run/tool-dispatch';
import { Agent, Outcome, Phase, Repo, Requester, SwitchboardKind, Thread } from './search-attributes';

/** The card is updated at most this often; changes in between are coalesced. */
export const CARD_MIN_INTERVAL_MS = 3_000;
/** A run may delegate this many levels deep (a child of a child is the limit). */
export const MAX_TASK_DEPTH = 2;
/** Tools that run commands in the workspace's sandbox. */
const SANDBOX_COMMAND_TOOLS = ['bash', 'grep', 'find_files', 'list_directory'];
/** Time kept back from the deadline for the closing summary turn. */
export const SUMMARY_RESERVE_MS = 60_000;

const setup = proxyActivities<{ loadAgentSetup(): Promise<AgentSetup> }>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});

/**
 * One use of one agent for one request: model turns, tool calls checked against the
 * toolset, budgets (deadline timer, turn guard, token cap), steer and stop, the status card,
 * child runs, and the record as its result.
 */
export async function agentRunWorkflow(input: RunInput): Promise<RunRecord> {
  const info = workflowInfo();
  const runId = info.workflowId;
  const state = new RunState(input, Date.now());
  const { profile } = input;
  let stopRequest: StopInput | undefined;
  let budgetOver = false;
  let inFlight: CancellationScope | undefined;
  let cardDirty = true;
  const background = new Map<
    string,
    { handle: ChildWorkflowHandle<typeof agentRunWorkflowType>; call: string; result?: RunRecord; done: boolean }
  >();

  setHandler(runStatusQuery, () => state.status(runId, Date.now()));
  const acceptSteer = (steer: SteerInput) => {
    state.pendingSteers.push({ text: steer.text.trim(), ...(steer.by ? { by: steer.by } : {}) });
    cardDirty = true;
  };
  setHandler(steerSignal, (steer) => {
    if (!state.finished && typeof steer?.text === 'string' && steer.text.trim()) acceptSteer(steer);
  });
  setHandler(
    steerUpdate,
    (steer) => {
      acceptSteer(steer);
      return { accepted: true, pending: state.pendingSteers.length };
    },
    {
      validator: (steer) => {
        if (typeof steer?.text !== 'string' || !steer.text.trim()) throw failure('steer_rejected', 'steer needs non-empty text');
        if (state.finished) throw failure('steer_rejected', `the run has finished (${state.outcome})`);
      },
    },
  );
  setHandler(stopSignal, (stop) => {
    if (state.finished || stopRequest) return;
    stopRequest = stop ?? {};
    inFlight?.cancel();
  });

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
      budgetOver = true;
      inFlight?.cancel();
    })
    .catch(() => undefined);

  // The deadline timer is started a little after the deadline is computed, so it can fire a
  // moment after a wait that ran to the deadline returned: the clock is checked as well.
  const pastDeadline = () => budgetOver || state.remainingMs(Date.now()) <= 0;

  /** Runs `work` so that a stop or the deadline can cancel it; undefined when cancelled. */
  const cancellable = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
    if (stopRequest || pastDeadline()) return undefined;
    const scope = new CancellationScope();
    inFlight = scope;
    try {
      return await scope.run(work);
    } catch (error) {
      if (isCancellation(error)) return undefined;
      throw error;
    } finally {
      inFlight = undefined;
    }
  };

  // A card that cannot be delivered (a long chat outage) is a lost view, never a failed run.
  const pushCard = async (final: boolean) => {
    try {
      await statusActivities.statusCard({
        runId,
        effectKey: `${runId}/card/0`,
        replyTarget: input.replyTarget,
        status: state.status(runId, Date.now()),
        final,
        ...(final ? { answer: state.finalText } : {}),
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      state.cardFailures += 1;
    }
  };
  // The card is throttled here, in workflow time: at most one update per interval, the
  // latest state wins, and the final state is always sent.
  const cardLoop = (async () => {
    for (;;) {
      await condition(() => cardDirty || state.finished);
      if (state.finished) return;
      cardDirty = false;
      await pushCard(false);
      await condition(() => state.finished, CARD_MIN_INTERVAL_MS);
    }
  })();

  const tools = modelToolSchemas(profile.tools);
  const turn = (withTools: boolean) =>
    models.modelTurn({
      model: profile.model.value,
      system: input.system,
      messages: state.messages,
      tools: withTools ? tools : [],
      maxTokens: profile.tokenCap,
      cacheTtl: profile.cacheTtl,
      runId,
      turn: state.turns + 1,
      ...(profile.effort.value ? { effort: profile.effort.value } : {}),
    });

  const dispatch = {
    state,
    workspace: { key: workspaceKeyFor(input, runId), network: profile.machine !== 'none' },
    touchCard: () => {
      cardDirty = true;
    },
    remainingMs: () => state.remainingMs(Date.now()),
    runTask: (call: ToolCall, args: Record<string, unknown>) => startTask(call, args),
    waitForTask: (call: ToolCall, jobId: string) => waitForTask(call, jobId),
    effectKey: (call: ToolCall) => `${runId}/${call.name}/${state.turns}.${callIndex(call)}`,
  };
  const callIndex = (call: ToolCall): number => {
    const last = state.messages[state.messages.length - 1];
    return last?.role === 'assistant' ? last.toolCalls.findIndex((candidate) => candidate.id === call.id) : -1;
  };

  async function startTask(call: ToolCall, args: Record<string, unknown>): Promise<ToolResult> {
    // Numbered before any await, so concurrent calls of one turn are numbered in call order.
    state.taskCounter += 1;
    const index = state.taskCounter;
    const depth = (input.parent?.depth ?? 0) + 1;
    if (depth > MAX_TASK_DEPTH) return toolError(call, `Delegation is limited to ${MAX_TASK_DEPTH} levels; do this part yourself.`);
    const { catalog, config, allowedModels: configured } = await setup.loadAgentSetup();
    const target = resolveTaskTarget(catalog, args.agent_type as string, profile);
    if (!target.ok) return toolError(call, target.message);
    if (typeof args.model === 'string') {
      // The model writes what chat asked for, so its choice passes the same allowlist as a directive.
      const allowed = allowedModels(catalog, config, configured);
      const choice = checkModelChoice({ model: args.model, surface: input.requester.surface, allowed });
      if (!choice.ok) return toolError(call, choice.message);
    }
    if (target.kind === 'agent') {
      const { surface, id, selfServe, grant } = input.requester;
      // The caller's self-serve flag and token grant follow it into the runs it delegates to.
      const who = { surface, userId: id, ...(selfServe ? { selfServe } : {}), ...(grant ? { grant } : {}) };
      const allowed = authorize(catalog, config, who, target.definition.id);
      if (!allowed.ok) return toolError(call, allowed.message);
    }
    const childProfile = resolveRoleProfile({
      role: target.definition,
      parent: profile,
      parentRemainingMinutes: Math.floor(state.remainingMs(Date.now()) / 60_000),
      ...(typeof args.model === 'string' ? { model: args.model } : {}),
    });
    const name = args.name as string;
    const workflowId = `${runId}/task-${index}-${name}`;
    const mode = (args.mode as 'sync' | 'background' | undefined) ?? 'background';
    const inherits = target.definition.conversation === 'inherited';
    const record: ChildRecord = { index, workflowId, agent: childProfile.agent, name, mode, startedAt: Date.now() };
    state.children.push(record);
    state.children.sort((a, b) => a.index - b.index);
    let handle: ChildWorkflowHandle<typeof agentRunWorkflowType>;
    try {
      handle = await startChild(agentRunWorkflowType, {
        workflowId,
        args: [
          {
            threadId: input.threadId,
            profile: childProfile,
            system: buildSystemPrompt(target.definition, childProfile),
            request: args.prompt as string,
            requester: input.requester,
            context: inherits ? conversationForChild() : [],
            replyTarget: { kind: 'api' },
            parent: { workflowId: runId, depth },
            ...(target.kind === 'role' ? { workspaceKey: dispatch.workspace.key } : {}),
          },
        ],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        staticSummary: `${childProfile.agent} task "${name}" for ${runId}`,
      });
    } catch (error) {
      Object.assign(record, { outcome: 'failed', endedAt: Date.now() });
      throw error;
    }
    if (mode === 'background') {
      const entry = { handle, call: call.id, done: false } as { handle: typeof handle; call: string; result?: RunRecord; done: boolean };
      background.set(workflowId, entry);
      handle
        .result()
        .then(
          (result) => {
            entry.result = result;
          },
          () => undefined,
        )
        .finally(() => {
          entry.done = true;
          Object.assign(record, { outcome: entry.result?.outcome ?? 'failed', endedAt: Date.now() });
        });
      return {
        callId: call.id,
        name: call.name,
        content: `Started ${childProfile.agent} task "${name}" in the background (job id ${workflowId}). Its answer arrives in this conversation when it finishes, or call wait_for_job with that job id.`,
      };
    }
    const result = await handle.result();
    Object.assign(record, { outcome: result.outcome, endedAt: Date.now() });
    return { callId: call.id, name: call.name, content: describeChild(name, result), isError: result.outcome !== 'completed' };
  }

  async function waitForTask(call: ToolCall, jobId: string): Promise<ToolResult> {
    const entry = background.get(jobId);
    if (!entry) return toolError(call, `No background task with job id ${jobId} in this run.`);
    state.phase = 'waiting';
    await condition(() => entry.done || budgetOver || stopRequest !== undefined);
    if (!entry.done) return toolError(call, `Stopped waiting for ${jobId}: the run is ending.`);
    background.delete(jobId);
    return { callId: call.id, name: call.name, content: describeChild(jobId, entry.result) };
  }

  function conversationForChild() {
    return state.messages.filter((message) => message.role !== 'tool' && !(message.role === 'assistant' && message.toolCalls.length > 0));
  }

  /** Background results that finished join the conversation before the next turn. */
  function collectBackground(): void {
    for (const [id, entry] of background) {
      if (!entry.done) continue;
      background.delete(id);
      state.note(`(background task ${id} finished) ${describeChild(id, entry.result)}`);
    }
  }

  try {
    while (!state.finished) {
      if (stopRequest) {
        state.finish('stopped', stopWords(stopRequest));
        break;
      }
      if (pastDeadline()) {
        state.finish('budget', `the ${profile.budget.minutes}-minute budget (${profile.budget.boundedBy})`);
        break;
      }
      if (state.turns >= profile.turnGuard) {
        await closingSummary(`the turn guard of ${profile.turnGuard} turns`);
        state.finish('turns', `the turn guard (${profile.turnGuard} turns)`);
        break;
      }
      collectBackground();
      state.drainSteers();
      state.phase = 'thinking';
      cardDirty = true;
      const result = await cancellable(() => turn(true));
      if (!result) continue;
      state.recordTurn(result);
      cardDirty = true;
      if (result.stopReason === 'max_tokens' && result.toolCalls.length === 0) {
        state.finish('tokens', `the token cap of ${profile.tokenCap} per call`);
        break;
      }
      if (result.toolCalls.length === 0) {
        const pending = [...background.values()].some((entry) => !entry.done);
        if (state.pendingSteers.length > 0) continue;
        if (!pending) {
          state.finish('completed');
          break;
        }
        state.phase = 'waiting';
        await condition(
          () =>
            [...background.values()].some((entry) => entry.done) ||
            budgetOver ||
            stopRequest !== undefined ||
            state.pendingSteers.length > 0,
        );
        continue;
      }
      state.phase = 'tools';
      const results = await cancellable(() => executeToolCalls(dispatch, result.toolCalls));
      state.recordToolResults(
        results ??
          result.toolCalls.map((call) => ({ callId: call.id, name: call.name, content: 'Cancelled: the run is ending.', isError: true })),
      );
      if (workflowInfo().continueAsNewSuggested && background.size === 0) {
        await settleCard(false);
        await continueAsNew<typeof agentRunWorkflow>({ ...input, carry: state.carry() });
      }
    }
  } catch (error) {
    if (isContinueAsNew(error)) throw error;
    // The root cause says why (a refused script, a missing key), not "Activity task failed".
    state.finish('failed', rootCause(error) ?? String(error));
  }

  deadlineScope.cancel();
  await closeOwnWorkspace();
  await settleCard(true);
  upsertSearchAttributes([
    { key: Phase, value: 'finished' },
    { key: Outcome, value: state.outcome ?? 'failed' },
  ]);
  return state.record(runId, Date.now());

  /**
   * Every process the run started in its workspace ends with the run, however it detached
   * (the files stay for the thread's next run). A role child shares its parent's workspace
   * and leaves it to the parent.
   */
  async function closeOwnWorkspace(): Promise<void> {
    if (input.parent && profile.kind === 'role') return;
    if (!SANDBOX_COMMAND_TOOLS.some((tool) => profile.tools.includes(tool))) return;
    if (!patched('close-workspace-at-run-end')) return;
    await CancellationScope.nonCancellable(() => workspaces.closeWorkspace({ workspace: dispatch.workspace })).catch(() => undefined);
  }

  async function closingSummary(bound: string): Promise<void> {
    if (state.remainingMs(Date.now()) < SUMMARY_RESERVE_MS) return;
    state.phase = 'summarising';
    state.note(
      `(system) The run has reached ${bound}. Tools are no longer available: answer now with what you found, what is done and what is left.`,
    );
    const result = await cancellable(() => turn(false));
    if (result) state.recordTurn(result);
  }

  async function settleCard(final: boolean): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      state.phase = final ? 'finished' : state.phase;
      if (final) await cardLoop;
      await pushCard(final);
    });
  }
}

/**
 * A run works in its thread's workspace (or the unit's checkout); a role child shares its
 * parent's, and an agent child started by `task` gets a cold one of its own.
 */
function workspaceKeyFor(input: RunInput, runId: string): string {
  if (input.parent && input.profile.kind === 'agent') return runId;
  return input.workspaceKey ?? input.threadId;
}

function toolError(call: ToolCall, content: string): ToolResult {
  return { callId: call.id, name: call.name, content, isError: true };
}

function describeChild(name: string, record: RunRecord | undefined): string {
  if (!record) return `Task ${name} failed before it produced a record.`;
  return `Task ${name} (${record.profile.agent}) ended ${record.outcome}${record.endedBy ? ` by ${record.endedBy}` : ''} after ${record.turns} turns.\n${record.finalText}`;
}

function stopWords(stop: StopInput): string {
  return [stop.by ? `stopped by ${stop.by}` : 'stopped', stop.reason].filter(Boolean).join(': ');
}

function isContinueAsNew(error: unknown): boolean {
  return (error as { name?: string })?.name === 'ContinueAsNew';
}
