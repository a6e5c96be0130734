import { isCancellation } from '@temporalio/workflow';
import type { ToolCall, ToolResult } from '../../contracts/model';
import type { ListSkillsResult, UseSkillResult } from '../../../activities/skills';
import { errorMessage, fail, ok } from './tool-result';
import { type ToolContext, type ToolExecutor } from './context';

/**
 * list_skills and use_skill. The run's own workspace counts (none for a run on no machine):
 * its checkout's .switchboard/skills/ are listed, and a used skill's files are placed where
 * the run's file tools reach them.
 */
const where = (ctx: ToolContext) => (ctx.state.input.profile.machine === 'none' ? {} : { workspace: ctx.workspace });

export const listSkills: ToolExecutor<'list_skills'> = async (ctx, call, input) => {
  try {
    return describeList(call, await ctx.activities.skills.listSkills({ ...where(ctx), ...(input.query ? { query: input.query } : {}) }));
  } catch (error) {
    if (isCancellation(error)) throw error;
    return fail(call, `${call.name} failed: ${errorMessage(error)}`);
  }
};

export const useSkill: ToolExecutor<'use_skill'> = async (ctx, call, input) => {
  try {
    return describeSkill(call, await ctx.activities.skills.useSkill({ ...where(ctx), name: input.name }));
  } catch (error) {
    if (isCancellation(error)) throw error;
    return fail(call, `${call.name} failed: ${errorMessage(error)}`);
  }
};

function describeList(call: ToolCall, listed: ListSkillsResult): ToolResult {
  const lines = listed.skills.map(
    (skill) => `- ${skill.name}: ${skill.description} (${skill.source === 'config' ? 'configured' : 'from the repository'})`,
  );
  const skipped = listed.problems.map((problem) => `- ${problem.path}: ${problem.problem}`);
  const body = lines.length ? ['Skills (load one with use_skill and its name):', ...lines] : ['No skills are available to this run.'];
  return ok(call, [...body, ...(skipped.length ? ['Skipped skill folders:', ...skipped] : [])].join('\n'));
}

function describeSkill(call: ToolCall, used: UseSkillResult): ToolResult {
  if (!used.ok) {
    const choices = used.available.length ? ` Available: ${used.available.join(', ')}.` : '';
    return fail(call, `${used.error}.${choices}`);
  }
  const lines = [`# Skill: ${used.name}`, used.description];
  if (used.files.length && used.location) {
    lines.push(`Files beside SKILL.md, in ${used.location}/ (read them with your file tools): ${used.files.join(', ')}`);
  } else if (used.files.length) {
    const shown = new Set((used.inlined ?? []).map((file) => file.path));
    const left = used.files.filter((file) => !shown.has(file));
    if (left.length) lines.push(`Files beside SKILL.md that this run cannot open (it has no workspace): ${left.join(', ')}`);
  }
  lines.push('', used.instructions);
  for (const file of used.inlined ?? []) lines.push('', `## ${file.path}`, '```', file.content.replace(/\n$/, ''), '```');
  return ok(call, lines.join('\n'));
}
