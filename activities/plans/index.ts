import { parsePlanFile } from './plan-document';
import type { PlanFile } from '../../workflows/contracts/plan-file';

/**
 * A plan asked for in chat, read the way the CLI reads a plan file (activities/plans/plan-document.ts): the
 * thread recognises `plan` and its YAML (agents/plan-message.ts) and has it read here, where YAML
 * and zod may load. Pure: a local activity, no I/O.
 */
export function createPlanActivities() {
  return {
    async readPlan(input: { yaml: string }): Promise<{ plan: PlanFile } | { problems: string[] }> {
      return parsePlanFile(input.yaml);
    },
  };
}

export type PlanActivities = ReturnType<typeof createPlanActivities>;
