import { createHmac, randomUUID } from 'node:crypto';

export interface SendOptions {
  /** Sets `X-Slack-Retry-Num` (and `X-Slack-Retry-Reason`), as Slack does on a redelivery. */
  retryNum?: number;
  /** Seconds since the epoch for `X-Slack-Request-Timestamp` (default now); an old one is stale. */
  timestamp?: number;
  /** Sign with this secret instead of the real one (a forged request). */
  signWith?: string;
}

export interface SendResult {
  status: number;
  text: string;
  elapsedMs: number;
}

/** `X-Slack-Signature`: `v0=` + HMAC-SHA256 of `v0:<timestamp>:<raw body>` under the signing secret. */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/**
 * Delivers Events API callbacks and interactive payloads to an app's request URL, signed
 * exactly as Slack signs them.
 */
export class SlackEventSender {
  constructor(
    private readonly targetUrl: string,
    private readonly signingSecret: string,
    private readonly team: { id: string; appId: string; botUserId: string },
  ) {}

  /** An `event_callback` envelope around one event, with a fresh event id unless given. */
  envelope(
    event: Record<string, unknown>,
    eventId = `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`,
  ): Record<string, unknown> {
    return {
      token: 'deprecated-verification-token',
      team_id: this.team.id,
      api_app_id: this.team.appId,
      event,
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: this.team.id, user_id: this.team.botUserId, is_bot: true, is_enterprise_install: false }],
      is_ext_shared_channel: false,
    };
  }

  /** Sends one event; returns its envelope (for a redelivery) and the app's answer. */
  async sendEvent(
    event: Record<string, unknown>,
    options: SendOptions & { eventId?: string } = {},
  ): Promise<{ envelope: Record<string, unknown>; result: SendResult }> {
    const envelope = this.envelope(event, options.eventId);
    return { envelope, result: await this.sendJson(envelope, options) };
  }

  /** Posts a JSON body (an envelope, possibly one sent before) signed as Slack would. */
  sendJson(body: Record<string, unknown>, options: SendOptions = {}): Promise<SendResult> {
    return this.send(JSON.stringify(body), 'application/json', options);
  }

  /** An interactive payload (`block_actions`), form-encoded as `payload=<json>`. */
  sendInteraction(payload: Record<string, unknown>, options: SendOptions = {}): Promise<SendResult> {
    return this.send(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), 'application/x-www-form-urlencoded', options);
  }

  async send(body: string, contentType: string, options: SendOptions = {}): Promise<SendResult> {
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(options.signWith ?? this.signingSecret, timestamp, body),
    };
    if (options.retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(options.retryNum);
      headers['x-slack-retry-reason'] = 'http_timeout';
    }
    const started = Date.now();
    const response = await fetch(this.targetUrl, { method: 'POST', headers, body });
    return { status: response.status, text: await response.text(), elapsedMs: Date.now() - started };
  }
}
