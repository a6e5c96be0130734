import 'zod-openapi';
import { z } from 'zod';
import { LinksSchema, modelField, repoField } from './schemas';

/** The HTTP API's plan bodies (`POST /plans`, `GET /plans/{id}`), validated and documented as schemas.ts's are; MCP's `plan` tool reuses the fields. */

const planKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lowercase letters, digits and hyphens (at most 40)')
  .describe("The unit's key, unique in the plan: its id is `unit:<repo>:<plan name>-<key>`.");

/** The plan request's fields (for tools whose input must be a plain object schema); the API adds the graph's checks. */
export const PlanRequestFields = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lowercase letters, digits and hyphens (at most 40)')
    .describe("The plan's slug: it runs as `plan:<repo>:<name>`."),
  repo: repoField.describe('The repository its units change.'),
  units: z
    .array(
      z.strictObject({
        key: planKey,
        request: z.string().trim().min(1).max(20_000).describe("The change this unit makes (its first coding round's request)."),
        dependsOn: z
          .array(planKey)
          .max(50)
          .optional()
          .describe('Keys of units it builds on: it starts once they merged (or were approved, without merge authority).'),
      }),
    )
    .min(1)
    .max(50)
    .describe('The units, each a ship unit on its own id with a conversation of its own.'),
  mergeAuthority: z.boolean().optional().describe('The plan merges its units in dependency order (default: `plan.mergeAuthority`).'),
  model: modelField.optional(),
});

export const PlanRequestSchema = PlanRequestFields.meta({
  id: 'PlanRequest',
  description: 'A plan: units with dependencies, started in order and (with merge authority) merged in order.',
});

export const PlanIdParams = z.object({
  planId: z.string().min(1).describe('The plan id, `plan:<owner>/<repo>:<name>` (URL-encoded).'),
});

const PlanUnitSchema = z.object({
  key: z.string(),
  unitId: z.string(),
  status: z.string().describe('waiting, running, ready, merging, merged, settled or blocked.'),
  dependsOn: z.array(z.string()),
  pullRequest: z.number().optional(),
  phase: z.string().optional().describe('The phase a running unit is in.'),
  outcome: z.string().optional(),
  spentUsd: z.number().optional(),
  note: z.string().optional().describe('Why a waiting unit has not started (not funded yet under the spend caps).'),
  links: LinksSchema.optional(),
});

export const PlanAcceptedSchema = z
  .object({
    planId: z.string(),
    status: z.literal('started'),
    units: z.array(PlanUnitSchema.pick({ key: true, unitId: true })),
    links: LinksSchema,
  })
  .meta({ id: 'PlanAccepted' });

export const PlanSchema = z
  .object({
    planId: z.string(),
    state: z.string().describe("The plan workflow's state: running, completed, …"),
    mergeAuthority: z.boolean().optional(),
    units: z.array(PlanUnitSchema).optional().describe('Each unit: its status, PR, phase, spend and links.'),
    merged: z.array(z.string()).optional().describe('Keys in the order their PRs merged.'),
    record: z.object({ outcome: z.string(), report: z.string() }).optional().describe('The record once ended.'),
    error: z.string().optional(),
    links: LinksSchema,
  })
  .meta({ id: 'Plan' });

export const PlanListSchema = z
  .object({
    plans: z.array(
      z.object({
        planId: z.string(),
        status: z.string(),
        repo: z.string().optional(),
        phase: z.string().optional(),
        outcome: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'PlanList' });

export type PlanRequest = z.output<typeof PlanRequestSchema>;
