import { type NextFunction, type Request, type Response } from 'express';
import { type Logger } from '../../infra/logger';

/** Slack's rule: a request more than five minutes from now, either way, is refused. */
export const MAX_REQUEST_SKEW_SECONDS = 5 * 60;

/**
 * Why a request's `X-Slack-Request-Timestamp` is unacceptable, or undefined. Bolt refuses only
 * stale requests; one dated in the future would stay replayable until that time comes, so
 * the bound holds both ways here. A missing or non-numeric header is refused too.
 */
export function requestTimestampProblem(header: string | undefined, nowMs: number): string | undefined {
  if (header === undefined || !/^\d{1,12}$/.test(header.trim())) return 'missing or malformed X-Slack-Request-Timestamp';
  const skew = Number(header) - Math.floor(nowMs / 1000);
  if (Math.abs(skew) <= MAX_REQUEST_SKEW_SECONDS) return undefined;
  return `X-Slack-Request-Timestamp is ${Math.abs(skew)} s in the ${skew > 0 ? 'future' : 'past'} (at most ${MAX_REQUEST_SKEW_SECONDS} s either way)`;
}

/** Express middleware in front of Bolt: 401 with nothing signalled when the timestamp is out of bounds. */
export function rejectSkewedSlackRequests(logger: Logger, now: () => number = Date.now) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const problem = requestTimestampProblem(req.get('x-slack-request-timestamp'), now());
    if (!problem) return next();
    logger.warn({ path: req.path, reason: problem }, 'Slack request refused');
    res.status(401).send();
  };
}
