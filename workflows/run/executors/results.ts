import { dispositionProblems } from '../../../tools';
import { planProblems } from '../../plan/plan-graph';
import { fail, ok } from './tool-result';
import { type ToolExecutor } from './context';

/** Workflow-native tools: the card's line and checklist, the structured results a unit reads, delegation. */
export const updateStatus: ToolExecutor<'update_status'> = async (ctx, call, input) => {
  ctx.state.statusText = input.summary;
  // The checklist replaces the last one when given; the card and the session page show it.
  if (input.steps) ctx.state.steps = input.steps.map((step) => ({ title: step.title, state: step.state }));
  return ok(call, input.steps ? `Status card updated, with a checklist of ${input.steps.length} steps.` : 'Status card updated.');
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
  return ok(
    call,
    recordedFor(
      ctx,
      'Description',
      "commits what is left, pushes the branch and opens the pull request with this title and description (or updates its own pull request; a person's pull request keeps theirs)",
    ),
  );
};

/**
 * A unit's coding round answers its open findings, each once: checked against the round's list
 * (an unknown, repeated or missing id comes back as data and nothing is recorded); the unit posts
 * the answers on their threads after the run. Runs with no findings to answer are refused.
 */
export const submitDispositions: ToolExecutor<'submit_dispositions'> = async (ctx, call, input) => {
  const open = ctx.state.input.findings?.map((finding) => finding.id) ?? [];
  if (ctx.state.input.submitsTo !== 'unit' || open.length === 0)
    return fail(
      call,
      "This run has no open findings to answer: submit_dispositions is for a ship unit's coding round that follows a review. Nothing was recorded.",
    );
  const problems = dispositionProblems(input.dispositions, open);
  if (problems.length > 0)
    return fail(
      call,
      `Not recorded: ${problems.join('; ')}. The open findings are ${open.join(', ')}; answer each exactly once and call submit_dispositions again.`,
    );
  ctx.state.submissions[call.name] = input;
  const counts = ['fixed', 'declined', 'question'].map(
    (kind) => `${input.dispositions.filter((d) => d.disposition === kind).length} ${kind}`,
  );
  return ok(
    call,
    `Dispositions recorded (${counts.join(', ')}). When this run ends, the ship unit pushes the branch and posts each answer as a reply in its finding's thread; a question waits for a person's answer there.`,
  );
};

/** A handoff: the unit settles `handed_off` with it (or waits for the answer to its question); elsewhere only recorded. */
export const submitHandoff: ToolExecutor<'submit_handoff'> = async (ctx, call, input) => {
  ctx.state.submissions[call.name] = input;
  if (ctx.state.input.submitsTo === 'unit')
    return ok(
      call,
      input.question
        ? "Handoff recorded. When this run ends, the ship unit pushes what the branch holds, posts the handoff and your question, and waits for a person's answer; the next round starts from your handoff. End your turn now."
        : 'Handoff recorded. When this run ends, the ship unit pushes what the branch holds, posts the handoff on the pull request and in the conversation, and settles handed_off. End your turn now.',
    );
  return ok(
    call,
    "Handoff recorded in this run's record only (this run belongs to no ship unit): say the same in your answer, which is what the person reads.",
  );
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
