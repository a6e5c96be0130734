import express, { type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express';
import { bearerToken, type Caller, type TokenTable } from '../../infra/api-tokens';
import { ApiError } from '../../infra/errors';
import { type Logger } from '../../infra/logger';
import { type Door, type PostOptions } from './door';
import { buildOpenApiDocument } from './openapi';
import { badRequest, sendProblem } from './problem';
import { type RateLimiter } from './rate-limit';
import { apiRoutes, type ApiRoute } from './routes';

export const API_BASE = '/api/v1';

export interface ApiRouterOptions {
  door: Door;
  tokens: TokenTable;
  limiter: RateLimiter;
  maxBodyBytes: number;
  logger: Logger;
}

type AuthedRequest = Request & { caller?: Caller };

/**
 * The `/api/v1` router: bearer token (401), rate limit (429 + Retry-After), body size (413),
 * JSON only (415), strict validation naming each bad or unknown field (400), then the
 * route's handler. Every error is RFC 9457 problem+json; none carries a stack.
 */
export function createApiRouter(options: ApiRouterOptions): Router {
  const routes = apiRoutes(options.door);
  const document = buildOpenApiDocument(routes);
  const router = Router();
  router.get('/openapi.json', (_req, res) => void res.json(document));
  router.use(authenticate(options, 'http'));
  router.use(jsonBody(options.maxBodyBytes));
  for (const route of routes) router[route.method](route.path, handler(route, options.logger));
  // A path the API has, with a method it does not take there: 405 with the methods it takes.
  for (const path of new Set(routes.map((route) => route.path))) {
    const allowed = routes.filter((route) => route.path === path).map((route) => route.method.toUpperCase());
    if (allowed.includes('GET')) allowed.push('HEAD');
    router.all(path, (req: Request, res: Response) =>
      sendProblem(
        res,
        new ApiError(
          'method_not_allowed',
          `${req.path} takes ${allowed.join(', ')}, not ${req.method}.`,
          {},
          { Allow: allowed.join(', ') },
        ),
        req.originalUrl,
      ),
    );
  }
  router.use((req: Request, res: Response) =>
    sendProblem(res, new ApiError('not_found', `No API route ${req.method} ${req.path}.`), req.originalUrl),
  );
  router.use(errorHandler(options.logger));
  return router;
}

/** Verifies the bearer token, then takes one request from the token's rate. */
export function authenticate(options: Pick<ApiRouterOptions, 'tokens' | 'limiter'>, surface: Caller['surface']): RequestHandler {
  return (req: AuthedRequest, res, next) => {
    const token = bearerToken(req.get('authorization'));
    const caller = token ? options.tokens.verify(token, surface) : undefined;
    if (!caller) {
      return sendProblem(
        res,
        new ApiError(
          'unauthorized',
          token ? 'The bearer token is not valid.' : 'Send Authorization: Bearer <token>.',
          {},
          { 'WWW-Authenticate': 'Bearer realm="switchboard"' },
        ),
        req.originalUrl,
      );
    }
    const taken = options.limiter.take(caller.tokenId, caller.requestsPerMinute);
    if (!taken.ok) {
      const error = new ApiError(
        'rate_limited',
        `Token ${caller.tokenId} is over its rate; retry in ${taken.retryAfterSeconds} s.`,
        {},
        { 'Retry-After': String(taken.retryAfterSeconds) },
      );
      return sendProblem(res, error, req.originalUrl);
    }
    req.caller = caller;
    next();
  };
}

/**
 * Bodies are JSON up to the limit. `curl -d` labels a body form-urlencoded unless told
 * otherwise, so that label is read as JSON too (a real form is then 400, not JSON); any
 * other media type with a body is 415.
 */
const JSON_TYPES = ['application/json', 'application/*+json', 'application/x-www-form-urlencoded'];

export function jsonBody(maxBodyBytes: number): RequestHandler[] {
  const parse = express.json({ limit: maxBodyBytes, type: JSON_TYPES, strict: true });
  return [
    (req, res, next) => {
      const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
      if (hasBody && !req.is(JSON_TYPES)) {
        return sendProblem(res, new ApiError('unsupported_media_type', 'Send the body as application/json.'), req.originalUrl);
      }
      next();
    },
    parse,
  ];
}

function handler(route: ApiRoute, logger: Logger): RequestHandler {
  return async (req: AuthedRequest, res, next) => {
    try {
      const params = route.params ? parse(route.params, req.params, 'path') : {};
      const query = route.query ? parse(route.query, req.query, 'query') : {};
      const body = route.body ? parse(route.body, req.body ?? {}, 'body') : undefined;
      const post = postOptions(route, req);
      const result = await route.handle({
        caller: req.caller!,
        params: params as Record<string, string>,
        query: query as Record<string, unknown>,
        body: body as never,
        post,
        req,
        res,
      });
      if (result !== undefined) res.status(route.success.status).json(result);
    } catch (error) {
      if (!(error instanceof ApiError)) logger.error({ err: error, route: route.operationId }, 'API handler failed');
      next(error);
    }
  };
}

/** `Idempotency-Key` (1 to 200 characters) and `Prefer: wait=<seconds>` (RFC 7240), where the route takes them. */
function postOptions(route: ApiRoute, req: Request): PostOptions {
  const key = route.idempotent ? req.get('idempotency-key') : undefined;
  if (key !== undefined && (key.length === 0 || key.length > 200)) {
    throw new ApiError('bad_request', 'Idempotency-Key: 1 to 200 characters', {
      errors: [{ field: 'Idempotency-Key', message: '1 to 200 characters' }],
    });
  }
  const wait = route.waits ? /(?:^|[,;\s])wait=(\d+)/.exec(req.get('prefer') ?? '')?.[1] : undefined;
  return { ...(key ? { idempotencyKey: key } : {}), ...(wait !== undefined ? { waitMs: Number(wait) * 1_000 } : {}) };
}

function parse(schema: NonNullable<ApiRoute['body']>, value: unknown, where: 'body' | 'query' | 'path'): unknown {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest(parsed.error, where);
  return parsed.data;
}

/** Body-parser failures and handler errors as problems; anything unknown is a 500 without detail. */
export function errorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.end();
    const type = (error as { type?: string })?.type;
    if (error instanceof ApiError) return sendProblem(res, error, req.originalUrl);
    if (type === 'entity.too.large')
      return sendProblem(res, new ApiError('payload_too_large', 'The body is over the size limit.'), req.originalUrl);
    if (type === 'entity.parse.failed')
      return sendProblem(res, new ApiError('bad_request', 'The body is not valid JSON.'), req.originalUrl);
    if ((error as { status?: number })?.status === 400)
      return sendProblem(res, new ApiError('bad_request', 'The request could not be read.'), req.originalUrl);
    logger.error({ err: error }, 'unhandled error in the API');
    sendProblem(res, new ApiError('internal_error', 'Something went wrong on our side; it has been logged.'), req.originalUrl);
  };
}
