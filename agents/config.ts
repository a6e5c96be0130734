import { z } from 'zod';
import { REPOSITORY_PATTERN } from '../tools/github-fields';
import { EFFORTS } from '../workflows/contracts/profile';

// The `agents` section of switchboard.yaml. Pure zod: the workflow bundle imports it for
// its types and the profile resolver reads the parsed value carried in workflow inputs.

const PersonGrantSchema = z
  .object({
    agents: z
      .array(z.string())
      .optional()
      .describe('If set, the only agents this person may run (narrows restrict.agents, never widens it).'),
    budgetMinutes: z.number().int().positive().optional().describe("Upper bound on this person's run budgets."),
    model: z.string().min(1).optional().describe("This person's model choice."),
    effort: z.enum(EFFORTS).optional().describe("This person's effort choice."),
  })
  .strict();

const ChannelSchema = z
  .object({
    defaultRepo: z
      .string()
      .regex(REPOSITORY_PATTERN, 'expected owner/name')
      .optional()
      .describe('Repository a request in this channel is about when it names none.'),
    budgetMinutes: z.number().int().positive().optional().describe('Upper bound on run budgets in this channel.'),
    allowedAgents: z.array(z.string()).optional().describe("If set, the only agents runnable in this channel (the channel's grant)."),
    model: z.string().min(1).optional().describe("This channel's model choice."),
    effort: z.enum(EFFORTS).optional().describe("This channel's effort choice."),
  })
  .strict();

/** Model and effort defaults of one catalog entry (agent or role), over its definition's own. */
const EntrySchema = z
  .object({
    model: z
      .string()
      .min(1)
      .optional()
      .describe("This entry's model, over its definition's (a channel, person or directive still chooses above it)."),
    effort: z.enum(EFFORTS).optional().describe("This entry's effort, over its definition's."),
    complementary: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        'For a role that runs beside its parent on another model family (rubber-duck): the models it may use, first match wins; a run whose model is of every listed family is not offered the role.',
      ),
  })
  .strict();

export const AgentsConfigSchema = z
  .object({
    customAgentsDir: z.string().min(1).optional().describe("Folder of *.agent.yaml files, relative to the config file's directory."),
    defaults: z
      .object({
        model: z
          .string()
          .min(1)
          .default('claude-sonnet-4-6')
          .describe('Model used unless an agent, channel, person or directive chooses one.'),
        effort: z.enum(EFFORTS).default('medium').describe('Effort used unless an agent, channel, person or directive chooses one.'),
      })
      .strict()
      .prefault({}),
    entries: z
      .record(z.string(), EntrySchema)
      .default({})
      .describe(
        'agent or role id -> its model and effort defaults (the agent layer: defaults -> agent -> channel -> person -> directive).',
      ),
    restrict: z
      .object({
        agents: z
          .record(z.string(), z.array(z.string()))
          .default({})
          .describe('agent id -> the user ids who may run it; an agent not named here is open to everyone.'),
      })
      .strict()
      .prefault({}),
    grants: z
      .object({
        people: z.record(z.string(), PersonGrantSchema).default({}).describe('user id -> what that person is narrowed to.'),
      })
      .strict()
      .prefault({}),
    channels: z.record(z.string(), ChannelSchema).default({}).describe('channel id -> its settings and grant.'),
    featureFlags: z
      .record(z.string(), z.boolean())
      .default({})
      .describe('flag -> on/off; an agent with a featureFlag is active only when it is on.'),
    routing: z
      .object({
        classifier: z
          .object({
            enabled: z
              .boolean()
              .default(false)
              .describe(
                'Ask a model which routable agent fits a message no rule placed (one model turn per such message; off by default).',
              ),
            model: z.string().min(1).optional().describe('The model of that turn (default: agents.defaults.model); a cheap one fits.'),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type AgentsConfig = z.output<typeof AgentsConfigSchema>;
export type AgentsConfigInput = z.input<typeof AgentsConfigSchema>;
export type PersonGrant = z.output<typeof PersonGrantSchema>;
export type ChannelSettings = z.output<typeof ChannelSchema>;
export type EntrySettings = z.output<typeof EntrySchema>;

/** A fully defaulted config, for callers (and tests) that have none. */
export function defaultAgentsConfig(input: AgentsConfigInput = {}): AgentsConfig {
  return AgentsConfigSchema.parse(input);
}
