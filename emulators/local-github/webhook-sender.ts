import { createHmac, randomUUID } from 'node:crypto';

export interface Delivery {
  id: string;
  event: string;
  body: string;
  status?: number;
  error?: string;
}

/**
 * Sends webhooks as GitHub does: a JSON body, `X-GitHub-Event`, `X-GitHub-Delivery` and an
 * `X-Hub-Signature-256` HMAC of the exact bytes. A redelivery reuses the id and the bytes.
 */
export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly listeners = new Set<(event: string, payload: object) => void>();

  constructor(
    private readonly url: string | undefined,
    private readonly secret: string | undefined,
  ) {}

  /** Delivers an event now; resolves with the delivery (status or error recorded). */
  async deliver(event: string, payload: object): Promise<Delivery> {
    const delivery: Delivery = { id: randomUUID(), event, body: JSON.stringify(payload) };
    this.deliveries.push(delivery);
    await this.send(delivery);
    return delivery;
  }

  /** Sends the same delivery again (same id, same bytes), as GitHub's "Redeliver" does. */
  async redeliver(id: string): Promise<Delivery> {
    const original = this.deliveries.find((d) => d.id === id);
    if (!original) throw new Error(`no delivery ${id}`);
    const again: Delivery = { id, event: original.event, body: original.body };
    this.deliveries.push(again);
    await this.send(again);
    return again;
  }

  /**
   * Sees every event the local GitHub raises, whether or not a webhook URL is set, as an app
   * installed on the repository would (the local CI listens here). Returns the unsubscribe.
   */
  subscribe(listener: (event: string, payload: object) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Fire-and-forget delivery for events caused by writes; `settle()` waits for them. */
  emit(event: string, payload: object): void {
    for (const listener of this.listeners) listener(event, payload);
    if (!this.url) return;
    const sending = this.deliver(event, payload).catch(() => undefined);
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
  }

  async settle(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private async send(delivery: Delivery): Promise<void> {
    if (!this.url) {
      delivery.error = 'no webhook URL configured';
      return;
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/local',
      'x-github-event': delivery.event,
      'x-github-delivery': delivery.id,
    };
    if (this.secret) headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', this.secret).update(delivery.body).digest('hex')}`;
    try {
      const response = await fetch(this.url, { method: 'POST', headers, body: delivery.body, signal: AbortSignal.timeout(10_000) });
      delivery.status = response.status;
      await response.arrayBuffer();
    } catch (error) {
      delivery.error = (error as Error).message;
    }
  }
}
