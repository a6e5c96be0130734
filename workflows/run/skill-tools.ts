import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { ToolCall, ToolResult } from '../../activities/models/types';
import type { WorkspaceRef } from '../../activities/sandbox/types';
import type { ListSkillsResult, SkillActivities, UseSkillResult } from '../../activities/skills';

const skills = proxyActivities<SkillActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

export const SKILL_TOOLS = new Set(['list_skills', 'use_skill']);

/**
 * list_skills and use_skill. `workspace` is the run's own (absent for a run on no machine):
 * its checkout's .switchboard/skills/ count, and a used skill's files are placed where the
 * run's file tools reach them.
 */
export async function runSkillTool(
  call: ToolCall,
  input: Record<string, unknown>,
  workspace: WorkspaceRef | undefined,
): Promise<ToolResult> {
  const where = workspace ? { workspace } : {};
  try {
    if (call.name === 'list_skills') {
      return describeList(call, await skills.listSkills({ ...where, ...(input.query ? { query: input.query as string } : {}) }));
    }
    return describeSkill(call, await skills.useSkill({ ...where, name: input.name as string }));
  } catch (error) {
    if (isCancellation(error)) throw error;
    const failure = error as { message?: string; cause?: { message?: string } };
    return {
      callId: call.id,
      name: call.name,
      content: `${call.name} failed: ${failure.cause?.message ?? failure.message ?? String(error)}`,
      isError: true,
    };
  }
}

function describeList(call: ToolCall, listed: ListSkillsResult): ToolResult {
  const lines = listed.skills.map(
    (skill) => `- ${skill.name}: ${skill.description} (${skill.source === 'config' ? 'configured' : 'from the repository'})`,
  );
  const skipped = listed.problems.map((problem) => `- ${problem.path}: ${problem.problem}`);
  const body = lines.length ? ['Skills (load one with use_skill and its name):', ...lines] : ['No skills are available to this run.'];
  return {
    callId: call.id,
    name: call.name,
    content: [...body, ...(skipped.length ? ['Skipped skill folders:', ...skipped] : [])].join('\n'),
  };
}

function describeSkill(call: ToolCall, used: UseSkillResult): ToolResult {
  if (!used.ok) {
    const choices = used.available.length ? ` Available: ${used.available.join(', ')}.` : '';
    return { callId: call.id, name: call.name, content: `${used.error}.${choices}`, isError: true };
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
  return { callId: call.id, name: call.name, content: lines.join('\n') };
}
