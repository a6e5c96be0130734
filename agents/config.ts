import { z } from 'zod';
import { REPOSITORY_PATTERN } from '../tools/github-fields';
import { EFFORTS } from './definition';

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
  })
  .strict();

export type AgentsConfig = z.output<typeof AgentsConfigSchema>;
export type AgentsConfigInput = z.input<typeof AgentsConfigSchema>;
export type PersonGrant = z.output<typeof PersonGrantSchema>;
export type ChannelSettings = z.output<typeof ChannelSchema>;

/** A fully defaulted config, for callers (and tests) that have none. */
export function defaultAgentsConfig(input: AgentsConfigInput = {}): AgentsConfig {
  return AgentsConfigSchema.parse(input);
}
