import { z } from 'zod';
import { FINDING_SEVERITIES } from '../../workflows/contracts/findings';
import { REPOSITORY_PATTERN } from '../../tools/github-fields';
import { BoardSettingsSchema } from './board-section';
import { McpAttachmentSchema } from './mcp-section';
import { RepositoryPushesSchema } from './pushes-section';

/**
 * A repository's own settings: what `.switchboard.yml` on its default branch may say, and what
 * the deployment may say of it under `repositories.<owner/name>` (the same keys; where both set
 * one, the stricter wins: activities/github/repo-settings.ts). Every key is optional: what
 * neither sets keeps the deployment's behaviour (no automatic reviews, the `review` gate, no
 * setup, every agent the admission allows).
 */

/** What asks for an automatic review of a pull request. */
export const REVIEW_TRIGGERS = ['opened', 'ready_for_review', 'review_requested', 'push'] as const;
export type ReviewTrigger = (typeof REVIEW_TRIGGERS)[number];

export const RepositoryReviewSchema = z
  .object({
    triggers: z
      .array(z.enum(REVIEW_TRIGGERS))
      .optional()
      .describe(
        'When a pull request is reviewed on its own: opened (and not a draft), ready_for_review, review_requested (of the bot), push (new commits, debounced).',
      ),
    debounceSeconds: z
      .number()
      .int()
      .min(0)
      .max(3_600)
      .optional()
      .describe('After a push, wait this long for the next one before reviewing (default 60).'),
    severity: z
      .enum(FINDING_SEVERITIES)
      .optional()
      .describe('The gate: findings at or above it must be addressed (a ship unit fixes them) (default: review.addressSeverity).'),
  })
  .strict();

export const RepositoryIssuesSchema = z
  .object({
    assign: z.boolean().optional().describe('Assigning an issue to the bot user starts a ship unit for it (default true).'),
    label: z
      .string()
      .min(1)
      .max(50)
      .optional()
      .describe('Adding this label to an issue starts a ship unit for it; removing it stops the unit (default: none).'),
  })
  .strict();

export const RepositorySetupSchema = z
  .object({
    commands: z
      .array(z.string().min(1).max(2_000))
      .max(20)
      .optional()
      .describe('Shell commands run in the sandbox after checkout and before the first model turn, in order.'),
    lockfiles: z
      .array(z.string().min(1).max(200))
      .max(20)
      .optional()
      .describe('Files whose contents key the setup cache with the commands (e.g. package-lock.json).'),
    timeoutSeconds: z.number().int().min(10).max(1_200).optional().describe('The bound on the whole setup (default 600).'),
  })
  .strict();

export const RepositoryAgentsSchema = z
  .object({
    allowed: z
      .array(z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'an agent id'))
      .optional()
      .describe('The agents that may run on this repository (absent: every agent the admission allows).'),
  })
  .strict();

export const RepositoryMcpSchema = z
  .object({
    agents: z
      .record(z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'an agent id'), z.array(McpAttachmentSchema))
      .optional()
      .describe(
        "agent or role id -> MCP servers of the deployment's `mcp.servers` attached to it on this repository, each with an optional allowlist of its tools (a server the deployment does not configure stays off).",
      ),
  })
  .strict();

/** The sections, by name: each is checked on its own, so a broken one does not take the others with it. */
export const REPOSITORY_SECTIONS = {
  review: RepositoryReviewSchema,
  issues: RepositoryIssuesSchema,
  setup: RepositorySetupSchema,
  agents: RepositoryAgentsSchema,
  mcp: RepositoryMcpSchema,
  pushes: RepositoryPushesSchema,
  board: BoardSettingsSchema,
} as const;

export const RepositorySettingsSchema = z
  .object({
    review: RepositoryReviewSchema.optional(),
    issues: RepositoryIssuesSchema.optional(),
    setup: RepositorySetupSchema.optional(),
    agents: RepositoryAgentsSchema.optional(),
    mcp: RepositoryMcpSchema.optional(),
    pushes: RepositoryPushesSchema.optional(),
    board: BoardSettingsSchema.optional(),
  })
  .strict();

/** `repositories`: owner/name -> the same keys as its `.switchboard.yml`. */
export const RepositoriesConfigSchema = z.record(z.string().regex(REPOSITORY_PATTERN, 'expected owner/name'), RepositorySettingsSchema);

export type RepositorySettingsInput = z.infer<typeof RepositorySettingsSchema>;
export type RepositoriesConfig = z.infer<typeof RepositoriesConfigSchema>;
