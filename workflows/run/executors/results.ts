import { ok, type ToolExecutor } from './context';

/** Workflow-native tools: the card's line, the structured results a unit reads, delegation. */
export const updateStatus: ToolExecutor<'update_status'> = async (ctx, call, input) => {
  ctx.state.statusText = input.summary;
  return ok(call, 'Status card updated.');
};

export const submitReview: ToolExecutor<'submit_review'> = async (ctx, call, input) => {
  ctx.state.submissions[call.name] = input;
  return ok(call, 'Review recorded; it is delivered when the run ends.');
};

export const submitDescription: ToolExecutor<'submit_description'> = async (ctx, call, input) => {
  ctx.state.submissions[call.name] = input;
  return ok(call, 'Description recorded; it is delivered when the run ends.');
};

/** A child run (sync or background), started by the run itself: it owns the children and their ids. */
export const task: ToolExecutor<'task'> = (ctx, call, input) => ctx.runTask(call, input);
