import { type Client } from '@temporalio/client';
import { type Logger } from '../../infra/logger';
import { HistoryReader, type WorkflowFacts } from '../../infra/history/reader';
import type { RenderContext } from './render/parts';
import { PAGE_TYPES } from './session-view';
import { SessionWatcher, type Subscriber } from './watcher';

export interface HubOptions {
  client: Client;
  logger: Logger;
  context: () => RenderContext;
  /** A watcher nobody has open is kept this long after its last use (a reload finds it warm). */
  idleMs?: number;
  /** At most this many workflows are kept; the longest unused idle one goes first. */
  maxWatchers?: number;
}

/**
 * The one place session pages get their data: one watcher per workflow id, however many pages
 * and live streams are open on it, so Temporal is read once per change and the worker asked
 * once per change (never once per viewer). Idle watchers are dropped after a while.
 */
export class SessionHub {
  readonly reader: HistoryReader;
  private readonly watchers = new Map<string, SessionWatcher>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleMs: number;
  private readonly maxWatchers: number;

  constructor(private readonly options: HubOptions) {
    this.reader = new HistoryReader(options.client);
    this.idleMs = options.idleMs ?? 120_000;
    this.maxWatchers = options.maxWatchers ?? 200;
    this.sweeper = setInterval(() => this.sweep(), Math.min(30_000, this.idleMs)).unref();
  }

  /** The redaction, clock and links the pages render with. */
  renderContext(): RenderContext {
    return this.options.context();
  }

  /** How many workflows are watched now. */
  get size(): number {
    return this.watchers.size;
  }

  /** The workflow's watcher (started and loaded), given what `describe` said of it; undefined for a type without a page. */
  async watch(facts: WorkflowFacts): Promise<SessionWatcher | undefined> {
    if (!PAGE_TYPES.has(facts.type)) return undefined;
    let watcher = this.watchers.get(facts.workflowId);
    // A new execution of the same id (a thread started again) is a new page.
    if (watcher && watcher.facts.runId !== facts.runId && !watcher.open) {
      watcher.stop();
      this.watchers.delete(facts.workflowId);
      watcher = undefined;
    }
    if (!watcher) {
      this.makeRoom();
      watcher = new SessionWatcher(
        {
          client: this.options.client,
          reader: this.reader,
          logger: this.options.logger,
          context: this.options.context,
          unitSession: (unitId) => this.unitSession(unitId),
        },
        facts,
      );
      this.watchers.set(facts.workflowId, watcher);
    }
    try {
      await watcher.ready;
    } catch (error) {
      this.watchers.delete(facts.workflowId);
      watcher.stop();
      throw error;
    }
    await watcher.touch();
    return watcher;
  }

  /** The watcher already there for an id, if any (the live stream attaches to it). */
  existing(workflowId: string): SessionWatcher | undefined {
    return this.watchers.get(workflowId);
  }

  subscribe(watcher: SessionWatcher, subscriber: Subscriber): () => void {
    return watcher.subscribe(subscriber);
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const watcher of this.watchers.values()) watcher.stop();
    this.watchers.clear();
  }

  private async unitSession(unitId: string) {
    const existing = this.watchers.get(unitId);
    const watcher = existing ?? (await this.watch(await this.reader.describe(unitId)));
    await watcher?.ready;
    const session = watcher?.unitSession();
    return watcher && session ? { session, version: watcher.version } : undefined;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, watcher] of this.watchers) {
      if (watcher.subscriberCount === 0 && now - watcher.lastUsed > this.idleMs) {
        watcher.stop();
        this.watchers.delete(id);
      }
    }
  }

  private makeRoom(): void {
    if (this.watchers.size < this.maxWatchers) return;
    const idle = [...this.watchers].filter(([, w]) => w.subscriberCount === 0).sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    for (const [id, watcher] of idle.slice(0, this.watchers.size - this.maxWatchers + 1)) {
      watcher.stop();
      this.watchers.delete(id);
    }
  }
}
