import { type Response } from 'express';
import { type z } from 'zod';
import { API_ERROR_STATUS, ApiError, type ApiErrorCode } from '../../infra/errors';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TITLES: Record<ApiErrorCode, string> = {
  bad_request: 'The request is malformed',
  unauthorized: 'A valid bearer token is required',
  access_refused: 'Access refused',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  job_finished: 'Already finished',
  steer_rejected: 'Steer refused',
  idempotency_conflict: 'Idempotency key reused',
  payload_too_large: 'Request body too large',
  unsupported_media_type: 'Unsupported media type',
  request_refused: 'Request refused',
  rate_limited: 'Too many requests',
  internal_error: 'Internal error',
  temporal_unavailable: 'Temporarily unavailable',
  sandbox_unavailable: 'No command isolation on this deployment',
  github_unavailable: 'GitHub did not confirm the repository',
};

/** The RFC 9457 document for an error: type, title, status, detail, and our code and extensions. */
export function problemDocument(error: ApiError, instance?: string): Record<string, unknown> {
  return {
    type: `urn:switchboard:problem:${error.code}`,
    title: TITLES[error.code],
    status: API_ERROR_STATUS[error.code],
    detail: error.message,
    code: error.code,
    ...(instance ? { instance } : {}),
    ...error.extensions,
  };
}

export function sendProblem(res: Response, error: ApiError, instance?: string): void {
  res
    .status(error.status)
    .set(error.headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problemDocument(error, instance)));
}

/** A zod failure as `bad_request`, each field named (an unknown field as itself). */
export function badRequest(error: z.ZodError, where: 'body' | 'query' | 'path'): ApiError {
  const errors = error.issues.flatMap((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: path ? `${path}.${key}` : key, message: 'unknown field' }));
    }
    return [{ field: path || `(${where})`, message: issue.message }];
  });
  const detail = errors.map((entry) => `${entry.field}: ${entry.message}`).join('; ');
  return new ApiError('bad_request', `Invalid ${where}: ${detail}`, { errors });
}
