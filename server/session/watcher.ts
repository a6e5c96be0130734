import { setTimeout as delay } from 'node:timers/promises';
import { type Client } from '@temporalio/client';
import {
  agentRunWorkflowType,
  runStatusQuery,
  shipUnitWorkflowType,
  threadStateQuery,
  unitStateQuery,
  type UnitState,
} from '../../workflows/contracts';
import { type Logger } from '../../infra/logger';
import type { Execution } from '../../infra/history/events';
import { Trace, type ActivityView } from './model/trace';
import type { UnitSession } from './model/unit-session';
import { continuedFrom, type HistoryReader, type WorkflowFacts } from '../../infra/history/reader';
import { withId } from './render/page';
import type { PageParts, RenderContext } from './render/parts';
import { renderSession, unitOfCodingRun, type LiveState } from './session-view';
import { buildUnitSession } from './model/unit-session';

/** A long continue-as-new chain is read back this far (the latest execution and the ones before it). */
export const MAX_EXECUTIONS = 8;
/** An open workflow is queried at most this often, however fast its events come. */
export const QUERY_EVERY_MS = 1_000;
/** After a query, history is read on for this long (what the query already saw is there by then). */
const CATCH_UP_MS = 150;

/** What changed since the last version: blocks (by id, with the section they go in) and the header. */
export interface SessionUpdate {
  version: number;
  header?: string;
  blocks: Array<{ id: string; html: string; parent: string }>;
  open: boolean;
}

export type Subscriber = (update: SessionUpdate) => void;

export interface WatcherDeps {
  client: Client;
  reader: HistoryReader;
  logger: Logger;
  context: () => RenderContext;
  /** A unit's session and its version, for its coding runs' diff (the hub's watcher of that unit). */
  unitSession?: (unitId: string) => Promise<{ session: UnitSession; version: number } | undefined>;
}

/**
 * One workflow's page state, however many people have it open: its history read once and then
 * followed with Temporal's long poll, its query asked once per change (at most once a second),
 * the page rendered once per change, and each change sent to every subscriber as the blocks
 * that differ. The hub keeps one per workflow id.
 */
export class SessionWatcher {
  readonly ready: Promise<void>;
  version = 0;
  parts?: PageParts;
  lastUsed = Date.now();
  private readonly subscribers = new Set<Subscriber>();
  private readonly earlier: Execution[] = [];
  private latest: Execution = { runId: '', events: [] };
  private token?: Uint8Array;
  /** The last event of the latest execution read so far, shown or not (workflow tasks are not). */
  private readTo = 0;
  private omitted = 0;
  private live?: LiveState;
  private lastQuery = 0;
  private sent = new Map<string, string>();
  /** The version of the unit whose diff this page (a unit's coding run) last showed. */
  private unitVersion = -1;
  private header = '';
  private readonly stopping = new AbortController();
  /** Times this watcher asked the workflow's query: the tests hold it to one per change. */
  queries = 0;

  constructor(
    private readonly deps: WatcherDeps,
    public facts: WorkflowFacts,
  ) {
    this.ready = this.load();
    this.ready.then(() => (this.facts.open ? this.follow() : undefined)).catch(() => undefined);
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  get open(): boolean {
    return this.facts.open;
  }

  subscribe(subscriber: Subscriber): () => void {
    this.subscribers.add(subscriber);
    this.lastUsed = Date.now();
    return () => {
      this.subscribers.delete(subscriber);
      this.lastUsed = Date.now();
    };
  }

  /** Every block of the current version, for a subscriber that missed some. */
  full(): SessionUpdate {
    const blocks = (this.parts?.sections ?? []).flatMap((section) =>
      section.blocks.map((block) => ({ id: block.id, html: withId(block.html, block), parent: section.id })),
    );
    return { version: this.version, header: this.header, blocks, open: this.facts.open };
  }

  stop(): void {
    this.stopping.abort();
  }

  /** One activity of one execution (a call's whole output), if this watcher read it; the execution by its run id's first characters. */
  activity(runPrefix: string, scheduledId: number): ActivityView | undefined {
    const execution = [...this.earlier, this.latest].find((candidate) => runPrefix.length >= 8 && candidate.runId.startsWith(runPrefix));
    return execution ? new Trace(execution.events, execution.runId).activities.get(scheduledId) : undefined;
  }

  private async load(): Promise<void> {
    const { reader } = this.deps;
    const { workflowId, runId } = this.facts;
    if (!this.facts.open) this.latest = await reader.execution(workflowId, runId);
    else {
      this.latest = { runId, events: [] };
      // Caught up once the events described are in (counting those no page shows: an idle
      // workflow's last event is a workflow task's), so the next page would be a long poll.
      while (this.latest.runId === runId && this.readTo < this.facts.historyLength) if (!(await this.nextPage(true))) break;
    }
    await this.readEarlier();
    await this.refresh();
  }

  private async readEarlier(): Promise<void> {
    // A thread carries what follow-ups need (its saved exchanges); runs and units show their whole chain.
    const reach = this.facts.type === agentRunWorkflowType.name || this.facts.type === shipUnitWorkflowType.name ? MAX_EXECUTIONS - 1 : 0;
    let previous = continuedFrom(this.latest);
    while (previous && this.earlier.length < reach) {
      const execution = await this.deps.reader.execution(this.facts.workflowId, previous);
      this.earlier.unshift(execution);
      previous = continuedFrom(execution);
    }
    if (previous) this.omitted = 1;
  }

  /** Reads the latest execution's next page; false once it closed (continued: the next execution is read from the start). */
  private async nextPage(follow: boolean, signal: AbortSignal = this.stopping.signal): Promise<boolean> {
    const page = await this.deps.reader.page(this.facts.workflowId, this.latest.runId, this.token, follow, signal);
    this.latest.events.push(...page.events);
    if (page.lastEventId) this.readTo = page.lastEventId;
    this.token = page.token;
    if (page.token) return true;
    const closed = this.latest.events[this.latest.events.length - 1];
    if (closed?.kind === 'closed' && closed.status === 'continuedAsNew' && closed.newRunId) {
      this.earlier.push(this.latest);
      if (this.earlier.length >= MAX_EXECUTIONS) {
        this.earlier.shift();
        this.omitted = 1;
      }
      this.latest = { runId: closed.newRunId, events: [] };
      this.readTo = 0;
      return true;
    }
    this.facts = { ...this.facts, open: false };
    return false;
  }

  private async follow(): Promise<void> {
    let failures = 0;
    while (!this.stopping.signal.aborted && this.facts.open) {
      try {
        const before = this.lastEventId();
        const more = await this.nextPage(true);
        failures = 0;
        if (this.lastEventId() === before && more) continue;
        // Let a burst of events land before asking the worker again.
        await delay(Math.max(0, this.lastQuery + QUERY_EVERY_MS - Date.now()), undefined, { signal: this.stopping.signal });
        await this.refresh();
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        failures += 1;
        this.deps.logger.warn({ err: error, workflowId: this.facts.workflowId }, 'session page: following the history failed; retrying');
        await delay(Math.min(30_000, 500 * 2 ** failures), undefined, { signal: this.stopping.signal }).catch(() => undefined);
      }
    }
  }

  /**
   * A unit's coding run shows the diff its unit read after it, which arrives after the run
   * ended: a page opened later renders again when the unit has moved on.
   */
  async touch(): Promise<void> {
    this.lastUsed = Date.now();
    const unitId = this.unitId();
    if (!unitId || !this.deps.unitSession) return;
    const unit = await this.deps.unitSession(unitId).catch(() => undefined);
    if (unit && unit.version !== this.unitVersion) await this.refresh();
  }

  /** The unit's session of this workflow, when it is a unit (for its coding runs' pages). */
  unitSession(): UnitSession | undefined {
    if (this.facts.type !== shipUnitWorkflowType.name) return undefined;
    return buildUnitSession(this.facts.workflowId, [...this.earlier, this.latest], this.live ? { state: this.live as UnitState } : {});
  }

  /**
   * Asks the query (open workflows), reads whatever history it already reflects, renders, and
   * sends what changed: the header (from the query) is then never ahead of the turns and rounds
   * below it (from history).
   */
  private async refresh(): Promise<void> {
    if (this.facts.open) {
      await this.query();
      await this.catchUp();
    }
    const { type, workflowId } = this.facts;
    const unitId = this.unitId();
    const unit = unitId ? await this.deps.unitSession?.(unitId).catch(() => undefined) : undefined;
    if (unit) this.unitVersion = unit.version;
    this.parts = renderSession(
      {
        workflowId,
        type,
        executions: [...this.earlier, this.latest],
        omitted: this.omitted,
        ...(this.live ? { live: this.live } : {}),
        ...(unit ? { unit: unit.session } : {}),
      },
      this.deps.context(),
    );
    this.broadcast();
  }

  private unitId(): string | undefined {
    return this.facts.type === agentRunWorkflowType.name ? unitOfCodingRun(this.facts.workflowId) : undefined;
  }

  /** New events already in history, if any: a long poll given a moment, then left (its token stays valid). */
  private async catchUp(): Promise<void> {
    const moment = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(CATCH_UP_MS)]);
    try {
      while (this.facts.open && (await this.nextPage(true, moment))) if (moment.aborted) break;
    } catch {
      // Nothing new within the moment (the poll was cancelled): history is caught up.
    }
  }

  private async query(): Promise<void> {
    const handle = this.deps.client.workflow.getHandle(this.facts.workflowId);
    this.lastQuery = Date.now();
    this.queries += 1;
    try {
      if (this.facts.type === agentRunWorkflowType.name) this.live = await handle.query(runStatusQuery);
      else if (this.facts.type === shipUnitWorkflowType.name) this.live = await handle.query(unitStateQuery);
      else this.live = await handle.query(threadStateQuery);
    } catch {
      // A workflow still starting (no handler yet) or a worker away: the page shows history alone.
    }
  }

  private broadcast(): void {
    const parts = this.parts!;
    const blocks: SessionUpdate['blocks'] = [];
    const seen = new Map<string, string>();
    for (const section of parts.sections) {
      for (const block of section.blocks) {
        const html = withId(block.html, block);
        seen.set(block.id, html);
        if (this.sent.get(block.id) !== html) blocks.push({ id: block.id, html, parent: section.id });
      }
    }
    const headerChanged = parts.header !== this.header;
    if (!headerChanged && blocks.length === 0 && this.version > 0 && parts.open === this.facts.open) return;
    this.sent = seen;
    this.header = parts.header;
    this.version += 1;
    const update: SessionUpdate = {
      version: this.version,
      blocks,
      open: this.facts.open,
      ...(headerChanged ? { header: parts.header } : {}),
    };
    for (const subscriber of this.subscribers) subscriber(update);
  }

  private lastEventId(): number {
    return this.latest.events[this.latest.events.length - 1]?.id ?? 0;
  }
}
