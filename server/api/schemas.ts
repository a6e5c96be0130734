import 'zod-openapi';
import { z } from 'zod';
import { DIRECTIVE_PATTERNS, MAX_DIRECTIVE_BUDGET_MINUTES, MIN_DIRECTIVE_BUDGET_MINUTES } from '../../agents/directives';

/**
 * The HTTP API's request and response bodies. The router validates requests with these
 * (strict: an unknown field is refused by name), the MCP tools reuse the request fields, and
 * `openapi.ts` renders the same schemas into the OpenAPI 3.1 document.
 */

const agentField = z
  .string()
  .regex(DIRECTIVE_PATTERNS.agent, 'an agent id (lowercase, digits, hyphens)')
  .describe('Run this agent (as `agent:<id>`).');
export const repoField = z
  .string()
  .regex(DIRECTIVE_PATTERNS.repo, 'owner/name')
  .describe('The repository the request is about (as `in owner/name:`).');
export const modelField = z
  .string()
  .regex(DIRECTIVE_PATTERNS.model, 'a model id')
  .describe('Use this model (as `model:<id>`), e.g. `scripted:examples/hello.yaml`; only configured choices are honoured.');
const budgetField = z
  .number()
  .int()
  .min(MIN_DIRECTIVE_BUDGET_MINUTES)
  .max(MAX_DIRECTIVE_BUDGET_MINUTES)
  .describe('Narrow the run budget to this many minutes (as `budget:<n>`; it never widens the preset).');
const textField = z
  .string()
  .trim()
  .min(1)
  .max(20_000)
  .describe('What to ask. Directives (`agent:explore budget:30 in acme/app: …`) work as in Slack.');

export const ThreadIdSchema = z
  .string()
  .regex(/^thread:api:[0-9a-f-]{36}$/, 'an API thread id (thread:api:<uuid>)')
  .describe('An API thread: `thread:api:<uuid>`.')
  .meta({ example: 'thread:api:0b7f4a52-4c1e-4f0e-9a57-3f8f2f8f1c11' });

export const MessageRequestSchema = z
  .strictObject({
    text: textField,
    agent: agentField.optional(),
    repo: repoField.optional(),
    model: modelField.optional(),
    budgetMinutes: budgetField.optional(),
  })
  .meta({ id: 'MessageRequest', description: 'A follow-up in a thread.' });

export const JobRequestSchema = MessageRequestSchema.extend({
  threadId: ThreadIdSchema.optional().describe('Continue this API thread instead of starting one.'),
}).meta({ id: 'JobRequest', description: 'A request to start a job (one run of one agent), in a new thread or a given one.' });

export const SteerRequestSchema = z
  .strictObject({ text: z.string().trim().min(1).max(20_000).describe('The instruction; it joins the conversation before the next turn.') })
  .meta({ id: 'SteerRequest' });

export const StopRequestSchema = z
  .strictObject({ reason: z.string().max(500).optional().describe('Why, recorded in the outcome.') })
  .meta({ id: 'StopRequest' });

/** The unit request's fields (for tools whose input must be a plain object schema); the API adds the rule. */
export const UnitRequestFields = z.strictObject({
  repo: repoField.describe('The repository.'),
  pullRequest: z.number().int().positive().optional().describe('Carry this exact pull request (the unit starts at review).'),
  request: z
    .string()
    .trim()
    .min(1)
    .max(20_000)
    .optional()
    .describe('The change asked for (or, with pullRequest, what to do beyond review).'),
  model: modelField.optional(),
  budgetMinutes: budgetField.optional().describe("Narrow the unit's budget and its runs' to this many minutes (never widens them)."),
});

export const UnitRequestSchema = UnitRequestFields.refine((body) => body.pullRequest !== undefined || body.request !== undefined, {
  message: 'give a pullRequest, a request, or both',
  path: ['request'],
}).meta({ id: 'UnitRequest', description: 'Ship an exact pull request, or a requested change in a repository.' });

export const JobIdParams = z.object({
  jobId: z.string().min(1).describe('The job id: the run workflow id, `run:<thread id>:<n>` (URL-encode a `/`).'),
});
export const ThreadIdParams = z.object({ threadId: ThreadIdSchema });
export const UnitIdParams = z.object({
  unitId: z.string().min(1).describe('The unit id, `unit:<owner>/<repo>#<n>` or `unit:<owner>/<repo>:<slug>` (URL-encoded).'),
});
export const UnitListQuery = z.strictObject({
  repo: repoField.optional().describe('Only units of this repository.'),
  limit: z.coerce.number().int().min(1).max(200).optional().describe('How many (default 50).'),
});
export const JobListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).optional().describe('How many (default 20).'),
});

export const IdempotencyKeyHeader = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Makes a retried POST start nothing twice: the same key (per token) answers with what the first request started.'),
});

export const LinksSchema = z
  .object({
    self: z.string().optional().describe('This resource.'),
    events: z.string().optional().describe('Server-Sent Events for the job.'),
    thread: z.string().optional().describe('The thread the job belongs to.'),
    unit: z.string().optional().describe('The ship unit.'),
    plan: z.string().optional().describe('The plan.'),
    webUi: z.string().optional().describe('The workflow in the Temporal Web UI.'),
    session: z
      .string()
      .optional()
      .describe(
        "The workflow's live session page, signed for it alone and expiring (`sessions.linkTtlHours`); absent when `sessions.enabled` is off.",
      ),
  })
  .meta({ id: 'Links' });

export const JobAcceptedSchema = z
  .object({
    kind: z
      .enum(['run', 'unit', 'plan', 'queued', 'answered'])
      .describe(
        'run: a job started; unit: a ship unit started or steered; plan: a plan started (the text was `plan` and its YAML); queued: the thread has not decided yet; answered: the thread answered itself (a /board command, /subconscious run).',
      ),
    threadId: z.string(),
    messageId: z.string().describe("The message's id in its thread (from Idempotency-Key when given)."),
    jobId: z.string().optional(),
    unitId: z.string().optional(),
    planId: z.string().optional(),
    agent: z.string().optional(),
    reply: z.string().optional().describe('What the thread answered (for a unit, a plan, or an answered command).'),
    links: LinksSchema,
  })
  .meta({ id: 'JobAccepted' });

const RUN_OUTCOMES = ['completed', 'stopped', 'budget', 'turns', 'tokens', 'spend', 'failed'] as const;

const TokensSchema = z
  .object({
    input: z.number(),
    output: z.number(),
    cacheRead: z.number(),
    cacheWrite: z.number(),
    cacheWrite1h: z.number().optional().describe('The part of cacheWrite written with the 1-hour lifetime.'),
  })
  .describe('Tokens by kind over the run: fresh input, output, prompt-cache reads and writes.');

const CostSchema = z
  .object({
    usd: z.number().describe('USD by the configured price table (`prices`): priced turns plus paid searches.'),
    searches: z.number().int(),
    searchUsd: z.number(),
    unpriced: z.array(z.string()).describe('Models that answered but have no price: their turns add nothing to `usd`.'),
    withoutCacheUsd: z.number().optional().describe('What `usd` would have been with no prompt cache.'),
  })
  .meta({ id: 'RunCost' });

const SpendCapSchema = z
  .object({ usd: z.number(), boundedBy: z.string() })
  .describe("The run's money bound from the spend caps (like its time budget), and what set it.");

export const RunStatusSchema = z
  .object({
    runId: z.string(),
    agent: z.string(),
    model: z.string(),
    phase: z.enum(['starting', 'thinking', 'tools', 'waiting', 'summarising', 'finished']),
    turns: z.number().int(),
    turnGuard: z.number().int(),
    tokens: TokensSchema,
    cost: CostSchema,
    elapsedMs: z.number(),
    budget: z.object({ minutes: z.number(), boundedBy: z.string(), description: z.string() }),
    lastTool: z.string().optional(),
    statusText: z.string().optional(),
    outcome: z.enum(RUN_OUTCOMES).optional(),
    endedBy: z.string().optional().describe('The bound that ended it, in words.'),
    cacheShare: z.number().optional().describe('Input tokens served from the prompt cache, over all input tokens (0 to 1).'),
    spendCap: SpendCapSchema.optional(),
  })
  .meta({ id: 'RunStatus', description: "A running job's live status (the run's `status` query)." });

export const RunRecordSchema = z
  .object({
    runId: z.string(),
    threadId: z.string(),
    request: z.string(),
    outcome: z.enum(RUN_OUTCOMES),
    endedBy: z.string().optional().describe('The bound that ended it, or who stopped it and why.'),
    turns: z.number().int(),
    tokens: TokensSchema,
    cost: CostSchema,
    toolCalls: z.array(z.object({ turn: z.number(), name: z.string(), ok: z.boolean(), error: z.string().optional() })),
    children: z.array(z.object({ workflowId: z.string(), agent: z.string() })),
    finalText: z.string().describe("The run's answer."),
    summary: z
      .string()
      .optional()
      .describe('The closing summary (what was done and what is left) when the budget, turn guard, token cap or spend cap ended the run.'),
    cacheShare: z.number().optional().describe('Input tokens served from the prompt cache, over all input tokens (0 to 1).'),
    spendCap: SpendCapSchema.optional(),
    profile: z.object({ agent: z.string() }).describe('The resolved profile: agent, model, budget and what bounded each.'),
    startedAt: z.number(),
    endedAt: z.number(),
  })
  .meta({
    id: 'RunRecord',
    description: "The run's durable record: what happened and which bound ended it. It claims no delivery anywhere.",
  });

export const JobSchema = z
  .object({
    jobId: z.string(),
    threadId: z.string().optional(),
    agent: z.string().optional(),
    state: z.enum(['running', 'completed', 'failed', 'terminated', 'cancelled', 'timed_out']).describe("The run workflow's state."),
    status: RunStatusSchema.optional().describe('While running.'),
    outcome: z.enum(RUN_OUTCOMES).optional().describe('Once completed.'),
    record: RunRecordSchema.optional(),
    report: z.string().optional().describe('The record in words: outcome, bounds, counts, then the answer.'),
    error: z.string().optional().describe('Why the run workflow itself failed (not a run outcome).'),
    links: LinksSchema,
  })
  .meta({ id: 'Job' });

export const JobListSchema = z
  .object({
    jobs: z.array(
      z.object({
        jobId: z.string(),
        state: z.string(),
        agent: z.string().optional(),
        outcome: z.string().optional(),
        startedAt: z.string(),
      }),
    ),
  })
  .meta({ id: 'JobList' });

export const ThreadSchema = z
  .object({
    threadId: z.string(),
    stickyAgent: z.string().optional(),
    currentRunId: z.string().optional(),
    queued: z.number().int(),
    runCount: z.number().int(),
    outcomes: z.array(
      z.object({
        messageId: z.string(),
        kind: z.string(),
        runId: z.string().optional(),
        unitId: z.string().optional(),
        agent: z.string().optional(),
        reply: z.string().optional(),
        code: z.string().optional(),
      }),
    ),
    links: LinksSchema,
  })
  .meta({ id: 'Thread', description: 'A thread and what it did with each recent message.' });

export const AgentListSchema = z
  .object({
    agents: z.array(
      z.object({
        id: z.string(),
        displayName: z.string(),
        description: z.string(),
        shell: z.boolean().describe('It holds a shell or works in a sandbox workspace.'),
        routable: z.boolean().describe('The router may pick it without an `agent` choice.'),
      }),
    ),
  })
  .meta({ id: 'AgentList', description: 'The agents this caller may use from this door.' });

export const SteerAcceptedSchema = z
  .object({ accepted: z.literal(true), pending: z.number().int().optional().describe('Steers waiting for the next turn (runs only).') })
  .meta({ id: 'SteerAccepted' });

export const StopAcceptedSchema = z
  .object({ stopping: z.literal(true), id: z.string() })
  .meta({ id: 'StopAccepted', description: 'The stop was sent; the job settles as stopped (follow its events).' });

export const UnitAcceptedSchema = z
  .object({ unitId: z.string(), status: z.enum(['started', 'steered']), links: LinksSchema })
  .meta({ id: 'UnitAccepted' });

export const UnitSchema = z
  .object({
    unitId: z.string(),
    state: z.string().describe("The unit workflow's state: running, completed, …"),
    unit: z.object({ phase: z.string(), round: z.number() }).optional().describe('The live state (the `state` query) while running.'),
    record: z.object({ outcome: z.string(), report: z.string() }).optional().describe('The record once settled.'),
    error: z.string().optional(),
    links: LinksSchema,
  })
  .meta({ id: 'Unit' });

export const UnitListSchema = z
  .object({
    units: z.array(
      z.object({
        unitId: z.string(),
        status: z.string(),
        repo: z.string().optional(),
        pullRequest: z.number().optional(),
        phase: z.string().optional(),
        outcome: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'UnitList' });

export const ProblemSchema = z
  .looseObject({
    type: z.string().describe('`urn:switchboard:problem:<code>`.'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().describe('What went wrong, in words; never a stack.'),
    code: z.string().describe('The stable code (infra/errors.ts): bad_request, unauthorized, access_refused, not_found, …'),
    errors: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .describe('For bad_request: each bad or unknown field.'),
    refusal: z
      .string()
      .optional()
      .describe("For access_refused / request_refused: the rule's own code (agent_restricted, self_serve_shell, repo_missing, …)."),
    rule: z.string().optional().describe('The config key or rule that refused.'),
  })
  .meta({ id: 'Problem', description: 'An RFC 9457 problem document (application/problem+json).' });

export type JobRequest = z.output<typeof JobRequestSchema>;
export type MessageRequest = z.output<typeof MessageRequestSchema>;
export type UnitRequest = z.output<typeof UnitRequestSchema>;
export type JobAccepted = z.output<typeof JobAcceptedSchema>;
export type Job = z.output<typeof JobSchema>;
export type Links = z.output<typeof LinksSchema>;
