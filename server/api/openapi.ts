import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { API_ERROR_STATUS, type ApiErrorCode } from '../../infra/errors';
import { PROBLEM_CONTENT_TYPE } from './problem';
import { type ApiRoute } from './routes';
import { ProblemSchema } from './schemas';

/** Answers every authenticated operation can give, whatever the route. */
const ALWAYS: ApiErrorCode[] = ['unauthorized', 'rate_limited', 'internal_error', 'temporal_unavailable'];

const PreferHeader = z.object({
  Prefer: z
    .string()
    .optional()
    .describe(
      "`wait=<seconds>` (RFC 7240): how long to wait for the thread's decision, at most the configured api.decisionWaitMs; `wait=0` answers `queued` unless it has decided already.",
    ),
});

const IdempotencyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'A retried POST with the same key (per token) starts nothing twice and answers as the first did; another body under the same key is 409.',
    ),
});

/**
 * The OpenAPI 3.1 document, rendered by zod-openapi from the route table: the same zod
 * schemas that validate each request describe it, so the document cannot drift from the code.
 */
export function buildOpenApiDocument(routes: ApiRoute[]): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {
    '/openapi.json': {
      get: {
        operationId: 'openApiDocument',
        summary: 'This document',
        security: [],
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document.',
            content: { 'application/json': { schema: z.looseObject({ openapi: z.string() }) } },
          },
        },
      },
    },
  };
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const operation: ZodOpenApiOperationObject = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      requestParams: {
        ...(route.params ? { path: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(route.idempotent || route.waits
          ? { header: z.object({ ...(route.idempotent ? IdempotencyHeader.shape : {}), ...(route.waits ? PreferHeader.shape : {}) }) }
          : {}),
      },
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
      responses: responses(route),
    };
    paths[path] = { ...paths[path], [route.method]: operation };
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Switchboard API',
        version: '1.0.0',
        description:
          'Start, follow, steer and stop Switchboard jobs and ship units. Every answer that is not a success is RFC 9457 problem+json with a stable `code`. Authenticate with `Authorization: Bearer <token>` (see `switchboard tokens create`).',
      },
      servers: [{ url: '/api/v1' }],
      security: [{ bearer: [] }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'A token from `switchboard tokens create --user <id>`.' },
        },
      },
      paths,
    },
    {
      // A response may gain members; clients ignore what they do not know. Requests stay strict.
      override: ({ jsonSchema, io }) => {
        if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
      },
    },
  );
}

function responses(route: ApiRoute): ZodOpenApiResponsesObject {
  const { success } = route;
  const answers: ZodOpenApiResponsesObject = {
    [`${success.status}` as `2${string}`]: {
      description: success.description,
      content: success.schema
        ? { [success.contentType ?? 'application/json']: { schema: success.schema } }
        : { [success.contentType ?? 'application/json']: { schema: z.string() } },
    },
  };
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of [...route.errors, ...ALWAYS])
    byStatus.set(API_ERROR_STATUS[code], [...(byStatus.get(API_ERROR_STATUS[code]) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    answers[`${status}` as `4${string}`] = {
      description: `Problem: ${[...new Set(codes)].map((code) => `\`${code}\``).join(', ')}.`,
      ...(status === 429 ? { headers: z.object({ 'Retry-After': z.string().describe('Seconds until the token may call again.') }) } : {}),
      content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
    };
  }
  return answers;
}
