import { type z } from 'zod';
import { type ApiErrorCode } from '../../infra/errors';
import { type Door } from './door';
import { streamJobEvents } from './events';
import { type RouteContext } from './route-context';
import {
  AgentListSchema,
  JobAcceptedSchema,
  JobIdParams,
  JobListQuery,
  JobListSchema,
  JobRequestSchema,
  JobSchema,
  MessageRequestSchema,
  SteerAcceptedSchema,
  SteerRequestSchema,
  StopAcceptedSchema,
  StopRequestSchema,
  ThreadIdParams,
  ThreadSchema,
  UnitAcceptedSchema,
  UnitIdParams,
  UnitListQuery,
  UnitListSchema,
  UnitRequestSchema,
  UnitSchema,
} from './schemas';
import { PlanAcceptedSchema, PlanIdParams, PlanListSchema, PlanRequestSchema, PlanSchema } from './plan-schemas';

export type { RouteContext } from './route-context';

/**
 * One operation of the API: the schemas that validate it (and document it), its success
 * answer, the error codes it can answer with, and its handler. The Express router and the
 * OpenAPI document are both built from this table, so neither can drift from the other.
 */
export interface ApiRoute {
  method: 'get' | 'post';
  /** Express path under `/api/v1`, e.g. `/jobs/:jobId`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Accepts `Idempotency-Key`. */
  idempotent?: boolean;
  /** Waits for the thread's decision, bounded by `Prefer: wait=<seconds>`. */
  waits?: boolean;
  success: { status: number; description: string; schema?: z.ZodType; contentType?: string };
  errors: ApiErrorCode[];
  /** Returns the success body, or undefined when it answered itself (a stream). */
  handle(context: RouteContext): Promise<unknown>;
}

const JOB_ERRORS: ApiErrorCode[] = ['access_refused', 'not_found'];

export function apiRoutes(door: Door): ApiRoute[] {
  const body = <T>(context: RouteContext) => context.body as T;
  return [
    {
      method: 'post',
      path: '/jobs',
      operationId: 'startJob',
      summary: 'Start a job',
      description:
        "Sends the text to a new API thread (or `threadId`'s) by signal-with-start and answers with the thread's decision: 202 with the job id, 403 when access refuses the agent, 422 when the thread refuses the request, 503 when this deployment cannot isolate the commands the agent would run, or 202 `queued` when it has not decided within the wait.",
      body: JobRequestSchema,
      idempotent: true,
      waits: true,
      success: { status: 202, description: 'Accepted: a job, a ship unit, or queued.', schema: JobAcceptedSchema },
      errors: [
        'bad_request',
        'access_refused',
        'not_found',
        'idempotency_conflict',
        'payload_too_large',
        'unsupported_media_type',
        'request_refused',
        'sandbox_unavailable',
        'github_unavailable',
      ],
      handle: (c) => door.startJob(c.caller, body(c), c.post),
    },
    {
      method: 'get',
      path: '/jobs',
      operationId: 'listJobs',
      summary: "The caller's recent jobs",
      description: 'From Temporal visibility, which trails a moment behind.',
      query: JobListQuery,
      success: { status: 200, description: 'Newest first.', schema: JobListSchema },
      errors: ['bad_request'],
      handle: (c) => door.listJobs(c.caller, c.query.limit as number | undefined),
    },
    {
      method: 'get',
      path: '/jobs/:jobId',
      operationId: 'getJob',
      summary: 'A job: its status while running, its record and report when done',
      params: JobIdParams,
      success: { status: 200, description: 'The job.', schema: JobSchema },
      errors: JOB_ERRORS,
      handle: (c) => door.getJob(c.caller, c.params.jobId),
    },
    {
      method: 'get',
      path: '/jobs/:jobId/events',
      operationId: 'jobEvents',
      summary: "A job's events (Server-Sent Events)",
      description:
        "Events: `status` (a RunStatus with the job's `links`, its session page among them, whenever it changes) while the job runs, then one `report` (the Job document) and the stream ends. A finished job answers with its `report` at once. Comments keep the connection alive.",
      params: JobIdParams,
      success: { status: 200, description: 'An event stream.', contentType: 'text/event-stream' },
      errors: JOB_ERRORS,
      handle: (c) => streamJobEvents(door, c),
    },
    {
      method: 'post',
      path: '/jobs/:jobId/steer',
      operationId: 'steerJob',
      summary: 'Steer a running job',
      description: 'The text joins the conversation before the next turn (an update: refused with 409 when the run has finished).',
      params: JobIdParams,
      body: SteerRequestSchema,
      success: { status: 200, description: 'Accepted.', schema: SteerAcceptedSchema },
      errors: ['bad_request', ...JOB_ERRORS, 'steer_rejected', 'payload_too_large', 'unsupported_media_type'],
      handle: (c) => door.steerJob(c.caller, c.params.jobId, body<{ text: string }>(c).text),
    },
    {
      method: 'post',
      path: '/jobs/:jobId/stop',
      operationId: 'stopJob',
      summary: 'Stop a running job',
      description: 'The in-flight step is cancelled and the run settles as stopped; follow its events for the record.',
      params: JobIdParams,
      body: StopRequestSchema,
      success: { status: 202, description: 'Stop sent.', schema: StopAcceptedSchema },
      errors: ['bad_request', ...JOB_ERRORS, 'job_finished', 'payload_too_large', 'unsupported_media_type'],
      handle: (c) => door.stopJob(c.caller, c.params.jobId, body<{ reason?: string }>(c).reason),
    },
    {
      method: 'get',
      path: '/threads/:threadId',
      operationId: 'getThread',
      summary: 'A thread and what became of its recent messages',
      params: ThreadIdParams,
      success: { status: 200, description: 'The thread.', schema: ThreadSchema },
      errors: ['bad_request', ...JOB_ERRORS],
      handle: (c) => door.getThread(c.caller, c.params.threadId),
    },
    {
      method: 'post',
      path: '/threads/:threadId/messages',
      operationId: 'postMessage',
      summary: 'A follow-up in a thread',
      description:
        'It sees the saved context of earlier exchanges and keeps the sticky agent; it waits its turn behind a running job (then the answer is `queued`).',
      params: ThreadIdParams,
      body: MessageRequestSchema,
      idempotent: true,
      waits: true,
      success: { status: 202, description: 'Accepted: a job, a ship unit, or queued.', schema: JobAcceptedSchema },
      errors: [
        'bad_request',
        ...JOB_ERRORS,
        'payload_too_large',
        'unsupported_media_type',
        'request_refused',
        'sandbox_unavailable',
        'github_unavailable',
      ],
      handle: (c) => door.submit(c.caller, body(c), { threadId: c.params.threadId, ...c.post }),
    },
    {
      method: 'get',
      path: '/agents',
      operationId: 'listAgents',
      summary: 'The agents this caller may use',
      description:
        "The catalog filtered by feature flags, this door's surface, restrict.agents, grants, the token's own grant and the self-serve rule.",
      success: { status: 200, description: 'The agents.', schema: AgentListSchema },
      errors: [],
      handle: async (c) => door.listAgents(c.caller),
    },
    {
      method: 'post',
      path: '/units',
      operationId: 'startUnit',
      summary: 'Ship an exact pull request or a requested change',
      description:
        'Starts a ship unit on its own id; one unit per PR or slug, so a second request steers the unit already there. Needs access to the `ship` agent.',
      body: UnitRequestSchema,
      idempotent: true,
      success: { status: 202, description: 'Started or steered.', schema: UnitAcceptedSchema },
      errors: ['bad_request', 'access_refused', 'payload_too_large', 'unsupported_media_type'],
      handle: (c) => door.startUnit(c.caller, body(c), c.post.idempotencyKey),
    },
    {
      method: 'get',
      path: '/units',
      operationId: 'listUnits',
      summary: "The caller's ship units",
      query: UnitListQuery,
      success: { status: 200, description: 'Newest first (visibility trails a moment).', schema: UnitListSchema },
      errors: ['bad_request'],
      handle: (c) => door.listUnits(c.caller, c.query),
    },
    {
      method: 'get',
      path: '/units/:unitId',
      operationId: 'getUnit',
      summary: "A unit's live state, or its record once settled",
      params: UnitIdParams,
      success: { status: 200, description: 'The unit.', schema: UnitSchema },
      errors: JOB_ERRORS,
      handle: (c) => door.getUnit(c.caller, c.params.unitId),
    },
    {
      method: 'post',
      path: '/units/:unitId/steer',
      operationId: 'steerUnit',
      summary: 'Steer a unit (the text joins its next coding round)',
      params: UnitIdParams,
      body: SteerRequestSchema,
      success: { status: 200, description: 'Accepted.', schema: SteerAcceptedSchema },
      errors: ['bad_request', ...JOB_ERRORS, 'steer_rejected', 'payload_too_large', 'unsupported_media_type'],
      handle: (c) => door.steerUnit(c.caller, c.params.unitId, body<{ text: string }>(c).text),
    },
    {
      method: 'post',
      path: '/units/:unitId/stop',
      operationId: 'stopUnit',
      summary: 'Stop a unit: it settles as stopped',
      params: UnitIdParams,
      body: StopRequestSchema,
      success: { status: 202, description: 'Stop sent.', schema: StopAcceptedSchema },
      errors: ['bad_request', ...JOB_ERRORS, 'job_finished', 'payload_too_large', 'unsupported_media_type'],
      handle: (c) => door.stopUnit(c.caller, c.params.unitId, body<{ reason?: string }>(c).reason),
    },
    {
      method: 'post',
      path: '/plans',
      operationId: 'startPlan',
      summary: 'Start a plan: units with dependencies, started in order and merged in order',
      description:
        'Starts `planWorkflow` on `plan:<repo>:<name>`, admitted as `ship` on the repository for the caller (as a plan asked for in Slack or on GitHub is). Each unit is a ship unit of its own (`/units/{unitId}`: read, steer, stop); its first round is reserved against the daily spend caps before it starts, and a unit the caps cannot fund yet waits. 422 `plan_invalid` names each problem with the graph; 422 `plan_running` when a plan of that name still runs.',
      body: PlanRequestSchema,
      idempotent: true,
      success: { status: 202, description: 'Started.', schema: PlanAcceptedSchema },
      errors: ['bad_request', 'access_refused', 'request_refused', 'payload_too_large', 'unsupported_media_type'],
      handle: (c) => door.startPlan(c.caller, body(c), c.post.idempotencyKey),
    },
    {
      method: 'get',
      path: '/plans',
      operationId: 'listPlans',
      summary: "The caller's plans",
      query: UnitListQuery,
      success: { status: 200, description: 'Newest first (visibility trails a moment).', schema: PlanListSchema },
      errors: ['bad_request'],
      handle: (c) => door.listPlans(c.caller, c.query),
    },
    {
      method: 'get',
      path: '/plans/:planId',
      operationId: 'getPlan',
      summary: "A plan's live state (each unit's status, PR, phase, spend and link), or its record once ended",
      params: PlanIdParams,
      success: { status: 200, description: 'The plan.', schema: PlanSchema },
      errors: JOB_ERRORS,
      handle: (c) => door.getPlan(c.caller, c.params.planId),
    },
    {
      method: 'post',
      path: '/plans/:planId/stop',
      operationId: 'stopPlan',
      summary: 'Stop a plan: its running units are stopped, the rest never start',
      params: PlanIdParams,
      body: StopRequestSchema,
      success: { status: 202, description: 'Stop sent.', schema: StopAcceptedSchema },
      errors: ['bad_request', ...JOB_ERRORS, 'job_finished', 'payload_too_large', 'unsupported_media_type'],
      handle: (c) => door.stopPlan(c.caller, c.params.planId, body<{ reason?: string }>(c).reason),
    },
  ];
}
