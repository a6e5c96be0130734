import { z } from 'zod';
import { FINDING_SEVERITIES } from '../../workflows/contracts/findings';

/** The review gate: findings at or above this severity must be addressed before a PR is ready. */
export const ReviewConfigSchema = z
  .object({
    addressSeverity: z.enum(FINDING_SEVERITIES).default('minor'),
  })
  .strict();

/** A ship unit's bounds and timers (workflow timers, never cron). */
export const ShipConfigSchema = z
  .object({
    /** Coding rounds after the first (findings, failed checks, steers) before the unit settles out of rounds. */
    maxRounds: z.number().int().min(1).max(20).default(3),
    /** How often the unit polls CI when no `checks` webhook arrives. */
    checksPollSeconds: z.number().int().min(10).default(120),
    /** How long the unit waits for pending CI before it idles with the reason. */
    checksTimeoutMinutes: z.number().int().min(1).default(60),
    /** How long a ready PR waits for people before the unit settles idle-expired. */
    idleTimeoutDays: z.number().min(0.01).default(7),
    /** Reminder interval while idle. */
    reminderHours: z.number().min(0.01).default(48),
    /** Branch new PRs target when the repository's default is not wanted. */
    baseBranch: z.string().min(1).optional(),
  })
  .strict();

/** Plans: whether the plan merges its units (then a dependent starts once its dependencies merged) or people do (then it starts once they are approved). */
export const PlanConfigSchema = z
  .object({
    mergeAuthority: z.boolean().default(true),
  })
  .strict();

export type ReviewConfig = z.infer<typeof ReviewConfigSchema>;
export type ShipConfig = z.infer<typeof ShipConfigSchema>;
export type PlanConfig = z.infer<typeof PlanConfigSchema>;
