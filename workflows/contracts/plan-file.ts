/** A plan document as the plan activities read it (activities/plans/plan-document.ts). */

import type { PlanUnitSpec } from './plan';

/** A plan as written in `plan.yaml` (see docs/ship.md, "Starting a plan"). */
export interface PlanFile {
  name: string;
  repo?: string;
  mergeAuthority?: boolean;
  model?: string;
  units: PlanUnitSpec[];
}
