import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  setCurrentDetails,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import * as proxies from './activity-proxies';
import {
  agentRunWorkflowType,
  runStatusQuery,
  steerSignal,
  steerUpdate,
  stopSignal,
  type AgentRunWorkflow,
  type RunInput,
  type RunRecord,
} from './contracts';
import { CANCEL_STOP, cancelAsStop, type OnCancel } from './cancel-as-stop';
import { InputGuard } from './input-guard';
import { InFlight } from './run/in-flight';
import { reportingEnd } from './run/report-end';
import { finishedAttributes, runningAttributes } from './run/run-attributes';
import { RunControl, type WorkflowClock } from './run/run-control';
import { runDetails } from './run/run-details';
import { RunHandlers } from './run/run-handlers';
import { RunLoop } from './run/run-loop';
import { RunOpening } from './run/run-opening';
import { RunParts, type RunPartsDeps } from './run/run-parts';
import { RunState } from './run/run-state';
import { RunWrites } from './run/run-writes';
import { executeToolCalls } from './run/tool-dispatch';

export { DEADLINE_SPARES_AFTER_DEADLINE_WORK } from './run/in-flight';
export { RUN_LISTS_UNCERTAIN_WRITES } from './run/run-writes';

/**
 * One use of one agent for one request: model turns, tool calls checked against the
 * toolset, budgets (deadline timer, turn guard, token cap), steer and stop, the status card,
 * child runs, and the record as its result. The workflow holds the message handlers, the
 * deadline timer and the order of the run's steps; every decision and piece of state is a plain
 * class in run/ (RunHandlers, InFlight, RunWrites, RunParts, RunOpening, RunLoop, …).
 */
export async function agentRunWorkflow(input: RunInput): Promise<RunRecord> {
  const run = () => cancelAsStop((onCancel) => agentRun(input, onCancel));
  // A run its thread started by a local activity (not as a child) tells the thread its end itself.
  return input.reportEnd === 'thread' ? reportingEnd(input.threadId, workflowInfo().workflowId, run) : run();
}

async function agentRun(input: RunInput, onCancel: OnCancel): Promise<RunRecord> {
  const runId = workflowInfo().workflowId;
  const clock: WorkflowClock = { now: () => Date.now(), condition };
  const state = new RunState(input, Date.now());
  const control = new RunControl(state, clock.now);
  const showDetails = () => setCurrentDetails(runDetails(state, guard.note()));
  // Every steer and stop is checked whole first (contracts/inputs.ts); a malformed signal is dropped and counted.
  const guard = new InputGuard('agentRunWorkflow', showDetails);
  // Asks `run-lists-uncertain-writes` first, as the run always has, before anything else is made.
  const { card, github } = new RunWrites({ runId, input, state, clock, proxies, patched, nonCancellable, onChange: showDetails });
  const inFlight = new InFlight({ state, control, newScope: () => new CancellationScope(), patched });
  const handlers = new RunHandlers({ runId, state, control, card, inFlight, now: clock.now });

  setHandler(runStatusQuery, () => handlers.status());
  guard.signal(steerSignal, (steer) => handlers.steerSignal(steer));
  guard.update(steerUpdate, (steer) => handlers.steerUpdate(steer), {
    code: 'steer_rejected',
    also: () => handlers.refuseSteerWhenFinished(),
  });
  guard.signal(stopSignal, (stop) => handlers.stop(stop));
  onCancel(() => handlers.stop(CANCEL_STOP));

  upsertSearchAttributes(runningAttributes(input));
  // The budget's deadline: it cancels the work in flight (InFlight.deadlinePassed).
  const deadlineScope = new CancellationScope();
  deadlineScope
    .run(async () => {
      await sleep(state.remainingMs(Date.now()));
      inFlight.deadlinePassed();
    })
    .catch(() => undefined);
  card.start();

  const sdk = { patched, sleep, signal: signalWorkflow, startRun: startRunChild, nonCancellable };
  const parts = new RunParts({ runId, input, state, control, clock, card, proxies, githubWrites: github, ...sdk });
  const { cancellable } = inFlight;
  await new RunOpening({ state, parts, card, proxies, cancellable, patched }).open();
  await new RunLoop({
    runId,
    state,
    control,
    clock,
    card,
    children: parts.children,
    models: proxies.models,
    closingModels: proxies.closingModels,
    patched,
    executeTools: (calls) => executeToolCalls(parts.tools, calls),
    cancellable,
    continueAsNewSuggested: () => workflowInfo().continueAsNewSuggested,
    continueAsNew: (carry) => continueAsNew<AgentRunWorkflow>(parts.continued(carry)),
  }).run();

  deadlineScope.cancel();
  parts.settleAnswer();
  if (parts.mcpTools) await nonCancellable(() => parts.mcpTools!.close()).catch(() => undefined);
  await parts.closeWorkspace();
  await card.settle(true);
  upsertSearchAttributes(finishedAttributes(state));
  return parts.record(Date.now());
}

/**
 * Work that runs to its end even when the run is being stopped or cancelled: the SDK's call, returned
 * as it is (no async wrapper, which would add a microtask between coroutines and could reorder commands).
 */
function nonCancellable<T>(work: () => Promise<T>): Promise<T> {
  return CancellationScope.nonCancellable(work);
}

/** A `signal` tool's message to another workflow (a unit the run steers or stops). */
const signalWorkflow: RunPartsDeps['signal'] = (workflowId, definition, ...args) =>
  getExternalWorkflowHandle(workflowId).signal(definition, ...args);

/** A `task` child: `agentRunWorkflow` as a child that is cancelled with this run and waited for when it is. */
const startRunChild: RunPartsDeps['startRun'] = (workflowId, child, staticSummary) =>
  startChild(agentRunWorkflowType, {
    workflowId,
    args: [child],
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    staticSummary,
  });
