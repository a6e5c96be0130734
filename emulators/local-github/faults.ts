import { type NextFunction, type Request, type Response } from 'express';

/** Which requests a fault applies to; an unset field matches everything. */
export interface FaultMatch {
  method?: string;
  /** A substring or pattern of the path below the API base (e.g. `/pulls`, /\/comments$/). */
  path?: string | RegExp;
  /** A substring of the JSON request body (e.g. an effect key, to fault one write among several to the same path). */
  bodyIncludes?: string;
}

type FaultKind =
  | { kind: 'drop' }
  | { kind: 'error'; status: number }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'hold'; delayMs: number }
  | { kind: 'rate_limit'; resetInSeconds: number; secondary: boolean };

interface FaultRule {
  match: FaultMatch;
  remaining: number;
  fault: FaultKind;
}

/** Fault injection for the local GitHub's REST API; each rule fires a number of times. */
export class Faults {
  private rules: FaultRule[] = [];

  /** Apply the write, then destroy the socket instead of answering: the caller cannot know it happened. */
  dropResponse(match: FaultMatch, times = 1): void {
    this.rules.push({ match, remaining: times, fault: { kind: 'drop' } });
  }

  /** Answer 5xx (without applying anything) `times` times. */
  serverErrors(match: FaultMatch, times: number, status = 502): void {
    this.rules.push({ match, remaining: times, fault: { kind: 'error', status } });
  }

  /** Delay answers by `delayMs`. */
  slow(match: FaultMatch, delayMs: number, times = Number.POSITIVE_INFINITY): void {
    this.rules.push({ match, remaining: times, fault: { kind: 'slow', delayMs } });
  }

  /**
   * Apply the write at once, then hold its answer for `delayMs`: a caller that dies in the
   * meantime (a worker SIGKILLed between request and result) never learns it happened.
   */
  holdResponse(match: FaultMatch, delayMs: number, times = 1): void {
    this.rules.push({ match, remaining: times, fault: { kind: 'hold', delayMs } });
  }

  /** Answer as GitHub does when the rate limit is spent: primary (403 + reset) or secondary (429 + retry-after). */
  rateLimit(match: FaultMatch, times: number, resetInSeconds = 60, secondary = false): void {
    this.rules.push({ match, remaining: times, fault: { kind: 'rate_limit', resetInSeconds, secondary } });
  }

  clear(): void {
    this.rules = [];
  }

  /** Takes the fault (if any) for a request, counting it down. */
  take(method: string, path: string, body?: unknown): FaultKind | undefined {
    const rule = this.rules.find((r) => r.remaining > 0 && matches(r.match, method, path, body));
    if (!rule) return undefined;
    rule.remaining -= 1;
    return rule.fault;
  }

  /** Express middleware applying the faults to the API routes below it. */
  middleware() {
    return async (req: Request, res: Response, next: NextFunction) => {
      const fault = this.take(req.method, req.path, req.body);
      if (!fault) return next();
      switch (fault.kind) {
        case 'slow':
          await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
          return next();
        case 'error':
          res.status(fault.status).json({ message: 'Server Error (injected)' });
          return;
        case 'rate_limit': {
          const reset = Math.floor(Date.now() / 1000) + fault.resetInSeconds;
          if (fault.secondary) {
            res.status(429).set('retry-after', String(fault.resetInSeconds)).json({ message: 'You have exceeded a secondary rate limit.' });
          } else {
            res
              .status(403)
              .set({ 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) })
              .json({ message: 'API rate limit exceeded' });
          }
          return;
        }
        case 'hold': {
          const end = res.end.bind(res) as (...args: unknown[]) => Response;
          res.end = ((...args: unknown[]) => {
            setTimeout(() => {
              if (!req.socket.destroyed) end(...args);
            }, fault.delayMs).unref();
            return res;
          }) as Response['end'];
          return next();
        }
        case 'drop':
          res.locals.dropResponse = true;
          // The handler applies the write; its answer is then thrown away with the connection.
          res.end = (() => {
            req.socket.destroy();
            return res;
          }) as Response['end'];
          return next();
      }
    };
  }
}

function matches(match: FaultMatch, method: string, path: string, body: unknown): boolean {
  if (match.method && match.method.toUpperCase() !== method.toUpperCase()) return false;
  if (match.bodyIncludes !== undefined && !JSON.stringify(body ?? '').includes(match.bodyIncludes)) return false;
  if (match.path === undefined) return true;
  return typeof match.path === 'string' ? path.includes(match.path) : match.path.test(path);
}
