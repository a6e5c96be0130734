/** What the activities that start and look at units and plans return (activities/units/unit-client.ts). */

export interface StartUnitResult {
  unitId: string;
  /** `started`, `steered` when the unit already existed (one unit per PR), `refused` with the missing settings or the spend cap. */
  status: 'started' | 'steered' | 'refused';
  reason?: string;
  /** Why it was refused: settings a unit needs are missing, or the daily spend caps cannot fund its first round. */
  code?: 'settings_missing' | 'spend_cap';
  /** A spend-cap refusal's amounts: spent and reserved today, the cap, what the round needed, when it resets (ISO). */
  spend?: { scope: string; id: string; spentUsd: number; reservedUsd: number; capUsd: number; neededUsd?: number; resetsAt: string };
}

export interface StartPlanResult {
  planId: string;
  /** `started`, or `running` when a plan with this id runs already (it is not started twice). */
  status: 'started' | 'running';
}

export interface UnitSummary {
  unitId: string;
  status: string;
  repo?: string;
  pullRequest?: number;
  phase?: string;
  outcome?: string;
  /** When it started (ISO), and how long ago in minutes when listed: fleet_status's "age". */
  startedAt?: string;
  ageMinutes?: number;
}
