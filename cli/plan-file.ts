import { readFileSync } from 'node:fs';
import { parsePlanFile } from '../activities/plans/plan-document';
import type { PlanFile } from '../workflows/contracts/plan-file';

export { graphProblems, parsePlanFile } from '../activities/plans/plan-document';
export type { PlanFile } from '../workflows/contracts/plan-file';

/** Reads a plan file from disk; problems are prefixed with the file name. */
export function readPlanFile(path: string): { plan: PlanFile } | { problems: string[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { problems: [`${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`] };
  }
  const result = parsePlanFile(text);
  return 'problems' in result ? { problems: result.problems.map((problem) => `${path}: ${problem}`) } : result;
}
