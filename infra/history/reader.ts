import { type Client } from '@temporalio/client';
import { decodeEvents } from './decode';
import type { Execution, SessionEvent } from './events';

/** What a page needs to know about a workflow before reading its history. */
export interface WorkflowFacts {
  workflowId: string;
  runId: string;
  type: string;
  open: boolean;
  /** Events in the latest execution when described (its reading is caught up at this event). */
  historyLength: number;
  /** `Requester`, `Agent`, `SwitchboardKind` and the other search attributes. */
  requester?: string;
  agent?: string;
  kind?: string;
  /** An API thread's owner (its memo). */
  owner?: string;
}

/** A page of one execution's history and where the next one starts (none once it closed). */
export interface HistoryPage {
  events: SessionEvent[];
  /**
   * The id of the last event the page held, whether or not a page shows it: a reader is caught up
   * by this, since the events it skips (workflow tasks) are often an idle workflow's last.
   */
  lastEventId?: number;
  token?: Uint8Array;
}

/**
 * Reads workflow histories from Temporal (the only store) and decodes them: a whole closed
 * execution, and an open one page by page, the last call a long poll that answers when new
 * events arrive (Temporal's own `waitNewEvent`; no worker is asked anything).
 */
export class HistoryReader {
  constructor(private readonly client: Client) {}

  async describe(workflowId: string): Promise<WorkflowFacts> {
    const description = await this.client.workflow.getHandle(workflowId).describe();
    const attributes = description.searchAttributes as Record<string, unknown[] | undefined>;
    const first = (key: string) => {
      const value = attributes?.[key]?.[0];
      return typeof value === 'string' ? value : undefined;
    };
    const owner = description.memo?.owner;
    return {
      workflowId,
      runId: description.runId,
      type: description.type,
      open: description.status.name === 'RUNNING',
      historyLength: description.historyLength,
      ...(first('Requester') ? { requester: first('Requester') } : {}),
      ...(first('Agent') ? { agent: first('Agent') } : {}),
      ...(first('SwitchboardKind') ? { kind: first('SwitchboardKind') } : {}),
      ...(typeof owner === 'string' ? { owner } : {}),
    };
  }

  /** The next page of an execution; with `follow`, a caught-up reader waits (long poll) for new events. */
  async page(
    workflowId: string,
    runId: string,
    token: Uint8Array | undefined,
    follow: boolean,
    signal?: AbortSignal,
  ): Promise<HistoryPage> {
    const call = () =>
      this.client.workflowService.getWorkflowExecutionHistory({
        namespace: this.client.options.namespace,
        execution: { workflowId, runId },
        ...(token?.length ? { nextPageToken: token } : {}),
        waitNewEvent: follow,
        skipArchival: true,
      });
    const response = signal ? await this.client.connection.withAbortSignal(signal, call) : await call();
    const raw = response.history?.events ?? [];
    const events = await decodeEvents(this.client.options.loadedDataConverter, raw);
    const last = raw.length ? Number(raw[raw.length - 1].eventId ?? 0) : undefined;
    return {
      events,
      ...(last ? { lastEventId: last } : {}),
      ...(response.nextPageToken?.length ? { token: response.nextPageToken } : {}),
    };
  }

  /** A closed execution, whole. */
  async execution(workflowId: string, runId: string): Promise<Execution> {
    const events: SessionEvent[] = [];
    let token: Uint8Array | undefined;
    do {
      const page = await this.page(workflowId, runId, token, false);
      events.push(...page.events);
      token = page.token;
    } while (token);
    return { runId, events };
  }
}

/** The run an execution continued from (continue-as-new), if any. */
export function continuedFrom(execution: Execution): string | undefined {
  const started = execution.events[0];
  return started?.kind === 'started' ? started.continuedFrom : undefined;
}
