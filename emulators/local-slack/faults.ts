/** What the local Slack does instead of answering normally. */
export type SlackFault =
  /** HTTP 429 with `Retry-After`, nothing applied (as Slack's rate limiter answers). */
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  /** Apply the call, then destroy the socket: the caller cannot know it happened. */
  | { kind: 'drop_response' }
  /** An HTTP 5xx, nothing applied. */
  | { kind: 'server_error'; status: number }
  /** Destroy the socket without applying the call: the caller cannot know it did not happen. */
  | { kind: 'lose_request' };

interface FaultRule {
  method: string;
  remaining: number;
  fault: SlackFault;
}

/** Fault injection by Web API method name (`chat.postMessage`); each rule fires a number of times. */
export class SlackFaults {
  private rules: FaultRule[] = [];

  rateLimit(method: string, times: number, retryAfterSeconds = 1): void {
    this.rules.push({ method, remaining: times, fault: { kind: 'rate_limited', retryAfterSeconds } });
  }

  dropResponse(method: string, times = 1): void {
    this.rules.push({ method, remaining: times, fault: { kind: 'drop_response' } });
  }

  /** The connection dies before the call is applied (a request lost in flight): its result is unknown, and it did not happen. */
  loseRequest(method: string, times = 1): void {
    this.rules.push({ method, remaining: times, fault: { kind: 'lose_request' } });
  }

  serverErrors(method: string, times: number, status = 503): void {
    this.rules.push({ method, remaining: times, fault: { kind: 'server_error', status } });
  }

  clear(): void {
    this.rules = [];
  }

  /** The fault for this call, if a rule still has firings left (the rule is used up by one). */
  take(method: string): SlackFault | undefined {
    const rule = this.rules.find((candidate) => candidate.method === method && candidate.remaining > 0);
    if (!rule) return undefined;
    rule.remaining -= 1;
    return rule.fault;
  }
}
