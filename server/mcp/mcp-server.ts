import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type Caller } from '../../infra/api-tokens';
import { ApiError } from '../../infra/errors';
import { formatStatusLine } from '../../infra/run-format';
import { type Door } from '../api/door';
import { badRequest } from '../api/problem';
import { JobRequestSchema, StopRequestSchema, UnitRequestFields, UnitRequestSchema, type Job } from '../api/schemas';
import { PlanRequestFields } from '../api/plan-schemas';

export interface McpServerOptions {
  /** How long `ask` waits for the report unless the call says otherwise. */
  askWaitSeconds: number;
  version?: string;
}

/** The longest an `ask` may wait in one call; beyond it the job id comes back to poll. */
export const MAX_ASK_WAIT_SECONDS = 600;

export const REPORT_TEMPLATE = 'switchboard://jobs/{jobId}/report';

/**
 * The MCP server for one verified caller, on the same door as the HTTP API (so the same
 * access rules, the self-serve rule included, decide). Tools: ask, job_status, steer, stop,
 * list_agents, ship, unit_status, plan, plan_status; each job's report is a resource. A refusal is a tool error
 * that names its code and reason, never a protocol failure.
 */
export function createMcpServer(door: Door, caller: Caller, options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'switchboard', version: options.version ?? '1.0.0' },
    { instructions: 'Ask Switchboard agents to do work; follow, steer and stop jobs; ship pull requests.' },
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask an agent',
      description:
        'Start a job (one run of one agent) and wait up to waitSeconds for its report; if it is still running then, the job id comes back for job_status. Directives in text work as in Slack.',
      inputSchema: JobRequestSchema.extend({
        waitSeconds: z
          .number()
          .int()
          .min(0)
          .max(MAX_ASK_WAIT_SECONDS)
          .optional()
          .describe(`How long to wait for the report (default ${options.askWaitSeconds}).`),
      }),
    },
    (args, extra) =>
      answer(async () => {
        const { waitSeconds, ...request } = args;
        const accepted = await door.startJob(caller, request);
        if (accepted.kind !== 'run' || !accepted.jobId) {
          const what =
            accepted.kind === 'unit'
              ? (accepted.reply ?? `Ship unit ${accepted.unitId} started.`)
              : accepted.kind === 'plan'
                ? (accepted.reply ?? `Plan ${accepted.planId} started.`)
                : accepted.kind === 'answered'
                  ? (accepted.reply ?? `Answered in ${accepted.threadId}.`)
                  : `Queued in ${accepted.threadId}; the thread has not decided yet.`;
          return done(what, accepted);
        }
        const jobId = accepted.jobId;
        const bound = new AbortController();
        const timer = setTimeout(() => bound.abort(), (waitSeconds ?? options.askWaitSeconds) * 1_000);
        extra.signal.addEventListener('abort', () => bound.abort());
        const progressToken = extra._meta?.progressToken;
        try {
          const final = await door.watchJob(caller, jobId, {
            signal: bound.signal,
            onStatus: (status) => {
              if (progressToken === undefined) return;
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken, progress: status.turns, total: status.turnGuard, message: formatStatusLine(status) },
                })
                .catch(() => undefined);
            },
          });
          if (!final) return done(`Job ${jobId} is still running; call job_status with this job id.`, { ...accepted, state: 'running' });
          return done(reportText(final), summary(final));
        } finally {
          clearTimeout(timer);
        }
      }),
  );

  server.registerTool(
    'job_status',
    {
      title: 'A job’s status or report',
      description: 'The live status of a running job, or its report (outcome, bounds, answer) once done.',
      inputSchema: z.strictObject({ jobId: z.string().min(1).describe('The job id ask returned.') }),
    },
    ({ jobId }) =>
      answer(async () => {
        const job = await door.getJob(caller, jobId);
        return done(reportText(job), summary(job));
      }),
  );

  server.registerTool(
    'steer',
    {
      title: 'Steer a job or unit',
      description: 'Send an instruction to a running job (it joins the next turn) or ship unit (its next coding round).',
      inputSchema: z.strictObject({
        id: z.string().min(1).describe('A job id (run:…) or unit id (unit:…).'),
        text: z.string().trim().min(1).max(20_000).describe('The instruction.'),
      }),
    },
    ({ id, text }) =>
      answer(async () => {
        const result = id.startsWith('unit:') ? await door.steerUnit(caller, id, text) : await door.steerJob(caller, id, text);
        return done(`Steer accepted by ${id}.`, result);
      }),
  );

  server.registerTool(
    'stop',
    {
      title: 'Stop a job, unit or plan',
      description: 'Stop a running job, ship unit or plan: it settles as stopped, with its record (a plan stops its running units).',
      inputSchema: StopRequestSchema.extend({ id: z.string().min(1).describe('A job id (run:…), unit id (unit:…) or plan id (plan:…).') }),
    },
    ({ id, reason }) =>
      answer(async () => {
        const result = id.startsWith('unit:')
          ? await door.stopUnit(caller, id, reason)
          : id.startsWith('plan:')
            ? await door.stopPlan(caller, id, reason)
            : await door.stopJob(caller, id, reason);
        return done(`Stop sent to ${id}.`, result);
      }),
  );

  server.registerTool(
    'list_agents',
    {
      title: 'The agents you may use',
      description: 'The agents this token may use here, with what each is for and whether it holds a shell.',
      inputSchema: z.strictObject({}),
    },
    () =>
      answer(async () => {
        const listed = await door.listAgents(caller);
        return done(
          listed.agents.map((agent) => `${agent.id}: ${agent.description}`).join('\n') || 'No agent is open to this token.',
          listed,
        );
      }),
  );

  server.registerTool(
    'ship',
    {
      title: 'Ship a change',
      description:
        'Start a ship unit that carries an exact pull request (pullRequest) or a requested change (request) to a ready PR: coding, review, fixes, CI.',
      inputSchema: UnitRequestFields,
    },
    (args) =>
      answer(async () => {
        const request = UnitRequestSchema.safeParse(args);
        if (!request.success) throw badRequest(request.error, 'body');
        const started = await door.startUnit(caller, request.data);
        return done(
          started.status === 'started'
            ? `Started ship unit ${started.unitId}.`
            : `Ship unit ${started.unitId} already exists; the request steered it.`,
          started,
        );
      }),
  );

  server.registerTool(
    'unit_status',
    {
      title: 'A ship unit’s state',
      description: "A unit's live state (phase, round, PR, checks) while it runs, or its report once settled.",
      inputSchema: z.strictObject({ unitId: z.string().min(1).describe('The unit id ship returned.') }),
    },
    ({ unitId }) =>
      answer(async () => {
        const unit = await door.getUnit(caller, unitId);
        const text =
          unit.record?.report ??
          (unit.unit
            ? `${unitId}: ${unit.unit.phase}, round ${unit.unit.round}`
            : `${unitId}: ${unit.state}${unit.error ? ` (${unit.error})` : ''}`);
        return done(text, unit);
      }),
  );

  server.registerTool(
    'plan',
    {
      title: 'Start a plan',
      description:
        'Start a plan: units (each a ship unit of its own, with its own id to steer and stop) with dependencies, started in order and, with merge authority, merged in dependency order. Admitted as ship on the repository.',
      inputSchema: PlanRequestFields,
    },
    (args) =>
      answer(async () => {
        const started = await door.startPlan(caller, args);
        return done(`Started plan ${started.planId}: ${started.units.map((unit) => `${unit.key} (${unit.unitId})`).join(', ')}.`, started);
      }),
  );

  server.registerTool(
    'plan_status',
    {
      title: 'A plan’s state',
      description: "A plan's live state (each unit's status, PR, phase and spend) while it runs, or its report once ended.",
      inputSchema: z.strictObject({ planId: z.string().min(1).describe('The plan id plan returned.') }),
    },
    ({ planId }) =>
      answer(async () => {
        const plan = await door.getPlan(caller, planId);
        const lines = (plan.units ?? []).map(
          (unit) =>
            `${unit.key}: ${unit.status}${unit.phase ? ` (${unit.phase})` : ''}${unit.pullRequest ? ` #${unit.pullRequest}` : ''}${unit.note ? ` — ${unit.note}` : ''}`,
        );
        const text = plan.record?.report ?? `${planId}: ${plan.state}${plan.error ? ` (${plan.error})` : ''}`;
        return done([text, ...lines].join('\n'), plan);
      }),
  );

  server.registerResource(
    'report',
    new ResourceTemplate(REPORT_TEMPLATE, {
      list: async () => {
        const { jobs } = await door.listJobs(caller);
        return {
          resources: jobs.map((job) => ({ uri: reportUri(job.jobId), name: `${job.agent ?? 'job'} ${job.jobId}`, mimeType: 'text/plain' })),
        };
      },
    }),
    {
      title: 'Job report',
      description: "A job's durable report: its outcome, bounds and answer (its live status while it runs).",
      mimeType: 'text/plain',
    },
    async (uri, variables) => {
      const jobId = decodeURIComponent(String(variables.jobId));
      const job = await door.getJob(caller, jobId);
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: reportText(job) }] };
    },
  );
  return server;
}

export function reportUri(jobId: string): string {
  return REPORT_TEMPLATE.replace('{jobId}', encodeURIComponent(jobId));
}

function reportText(job: Job): string {
  if (job.report) return job.report;
  if (job.status) return `${job.jobId} is running: ${formatStatusLine(job.status)}`;
  return `${job.jobId}: ${job.state}${job.error ? ` (${job.error})` : ''}`;
}

function summary(job: Job) {
  return {
    jobId: job.jobId,
    ...(job.threadId ? { threadId: job.threadId } : {}),
    state: job.state,
    ...(job.outcome ? { outcome: job.outcome } : {}),
    ...(job.record ? { finalText: job.record.finalText } : {}),
    ...(job.status ? { status: job.status } : {}),
  };
}

function done(text: string, structured: object): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
}

/** Runs a tool; an `ApiError` (a refusal, a bad id) becomes a tool error naming its code. */
async function answer(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return {
      isError: true,
      content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
      structuredContent: { code: error.code, detail: error.message, ...error.extensions },
    };
  }
}
