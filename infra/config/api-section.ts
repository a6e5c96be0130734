import { z } from 'zod';

/**
 * The HTTP API and MCP doors. A bearer token is never stored: the config (or
 * `SWITCHBOARD_API_TOKENS`, the same list as JSON) holds its SHA-256 and what it may do.
 * `switchboard tokens create --user <id>` prints a new token once and the entry to add.
 */
export const ApiTokenSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, dot, underscore and hyphen (at most 64)')
      .describe('A name for the token: logs, rate limits and refusals name it, never the token itself.'),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'the SHA-256 of the token as 64 lowercase hex digits')
      .describe('SHA-256 of the token (hex).'),
    user: z.string().min(1).describe('The requester id its runs carry: the id restrict.agents and grants.people name.'),
    agents: z
      .array(z.string())
      .optional()
      .describe('If set, the only agents this token reaches (narrows the access rules, never widens them).'),
    selfServe: z
      .boolean()
      .default(false)
      .describe('A self-serve token: it never reaches an agent that holds a shell, nor its runs through delegation.'),
    requestsPerMinute: z.number().int().positive().optional().describe("This token's own rate, instead of api.rateLimit."),
    admin: z
      .boolean()
      .optional()
      .describe("An admin token: it reads, steers and stops every person's jobs and units (an operator's), not only its own."),
  })
  .strict();

export const ApiConfigSchema = z
  .object({
    tokens: z.array(ApiTokenSchema).default([]).describe('The bearer tokens the API and MCP accept (hashes only).'),
    rateLimit: z
      .object({
        requestsPerMinute: z.number().int().positive().default(120).describe('Sustained requests per minute per token.'),
        burst: z.number().int().positive().default(30).describe('Requests a token may make at once before the rate applies.'),
      })
      .strict()
      .prefault({}),
    maxBodyBytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024)
      .describe('Request bodies above this are refused with 413.'),
    decisionWaitMs: z
      .number()
      .int()
      .min(0)
      .default(10_000)
      .describe("How long POST /jobs waits for the thread's decision (run, unit or refusal) before answering 202 queued."),
    askWaitSeconds: z.number().int().min(0).max(600).default(120).describe('How long the MCP ask tool waits for the report by default.'),
  })
  .strict();

export type ApiConfig = z.output<typeof ApiConfigSchema>;
export type ApiTokenConfig = z.output<typeof ApiTokenSchema>;
