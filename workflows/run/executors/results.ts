import { ok, type ToolExecutor } from './context';

/** Workflow-native tools: the card's line, the structured results a unit reads, delegation. */
export const updateStatus: ToolExecutor<'update_status'> = async (ctx, call, input) => {
  ctx.state.statusText = input.summary;
  return ok(call, 'Status card updated.');
};

/**
 * A direct run delivers the submission here and says what happened; in a unit's run it is
 * recorded for the unit, which delivers it after the run; a `task` child only records it.
 */
export const submitReview: ToolExecutor<'submit_review'> = async (ctx, call, input) => {
  if (ctx.direct) return ctx.direct.submitReview(call, input);
  ctx.state.submissions[call.name] = input;
  return ok(call, recordedFor(ctx, 'Review', 'validates it, applies its severity gate and posts it on the commit you reviewed'));
};

export const submitDescription: ToolExecutor<'submit_description'> = async (ctx, call, input) => {
  if (ctx.direct) return ctx.direct.submitDescription(call, input);
  ctx.state.submissions[call.name] = input;
  return ok(call, recordedFor(ctx, 'Description', 'commits and pushes the branch and opens or updates the pull request with it'));
};

function recordedFor(ctx: Parameters<ToolExecutor<'task'>>[0], what: string, unitDoes: string): string {
  if (ctx.state.input.submitsTo === 'unit') return `${what} recorded. When this run ends, the ship unit ${unitDoes}.`;
  if (ctx.state.input.parent)
    return `${what} recorded in this run's record for the run that started it; nothing is posted or pushed from here.`;
  return `${what} recorded in this run's record; nothing is posted or pushed, since this run has no repository.`;
}

/** A child run (sync or background), started by the run itself: it owns the children and their ids. */
export const task: ToolExecutor<'task'> = (ctx, call, input) => ctx.runTask(call, input);
