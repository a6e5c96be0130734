import { planProblems } from '../../plan/plan-graph';
import { fail, ok, type ToolExecutor } from './context';

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

/**
 * A plan drafted for the person to confirm: checked (keys, dependencies, cycles) and recorded in
 * the run's record; the thread keeps the last sound draft and starts it when the person who asked
 * replies `plan confirm` (workflows/thread/plan-ask.ts). Nothing starts from here.
 */
export const planDraft: ToolExecutor<'plan_draft'> = async (ctx, call, input) => {
  const problems = planProblems(input.units);
  if (problems.length > 0) return fail(call, `The plan is not sound: ${problems.join('; ')}. Nothing was drafted.`);
  // The person's explicit model choice carries over to the plan's units, as unit_start's does.
  const { model } = ctx.state.input.profile;
  ctx.state.submissions[call.name] = { ...input, ...(model.chosenBy === 'directive' ? { model: model.value } : {}) };
  const planId = `plan:${input.repo}:${input.name}`;
  const where = ctx.state.input.parent
    ? " (in this run's record for the run that started it)"
    : `; the person who asked starts it by replying \`plan confirm\` in this conversation, or asks you for changes. Show them the plan's units and dependencies in your answer`;
  return ok(
    call,
    `Drafted ${planId} with ${input.units.length} unit${input.units.length === 1 ? '' : 's'} (${input.units.map((unit) => unit.key).join(', ')}). Nothing has started${where}.`,
  );
};
