import { type Request, type Response } from 'express';
import { type Caller } from '../../infra/api-tokens';
import { type PostOptions } from './door';

// What a route's handler receives, on its own so that handlers kept in files of their own
// (./events) and the route table (./routes) that lists them do not import each other.

export interface RouteContext {
  caller: Caller;
  // Validated by the route's schemas before the handler runs.
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: never;
  /** `Idempotency-Key` and `Prefer: wait=<s>`, for routes that take them. */
  post: PostOptions;
  req: Request;
  res: Response;
}
