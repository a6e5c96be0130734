import { type DataConverter } from '@temporalio/common';
import { type NativeConnection, type Worker } from '@temporalio/worker';
import { residentTaskQueue } from '../activities/units/resident-queue';
import { type Logger } from './logger';
import { createSwitchboardWorker } from './worker';

export interface ResidentQueuesOptions {
  connection: NativeConnection;
  namespace: string;
  /** The shared task queue the resident queues are named after. */
  taskQueue: string;
  /** The activities served there (a checkout is prepared there: `prepareUnitWorkspace`). */
  activities: object;
  /** The repositories this host holds a cache of (RepoCache.repos). */
  repos(): Promise<string[]>;
  dataConverter?: DataConverter;
  logger?: Logger;
  /** At most this many repositories' queues are polled (the most recently listed first). */
  max?: number;
}

/**
 * A worker host polls one more task queue per repository whose cache it holds
 * (`<taskQueue>@repo:<owner/name>`), so resident work on that repository can ask for a host where
 * its cache is warm: the workflow looks the queue's pollers up and sends its checkout there, and
 * falls back to the shared queue when none polls or none picks the checkout up in time
 * (workflows/run/resident-host.ts). Queues follow the caches: started when one is built, stopped
 * when it is evicted.
 */
export class ResidentQueues {
  private readonly workers = new Map<string, { worker: Worker; running: Promise<void> }>();
  private syncing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: ResidentQueuesOptions) {}

  /** Brings the polled queues in line with the caches on disk (serialised; a failure is logged). */
  sync(): Promise<void> {
    this.syncing = this.syncing
      .then(() => this.syncNow())
      .catch((error: unknown) => this.options.logger?.warn({ err: error }, 'the resident task queues could not be updated'));
    return this.syncing;
  }

  /** The queues polled now. */
  queues(): string[] {
    return [...this.workers.keys()];
  }

  private async syncNow(): Promise<void> {
    if (this.stopped) return;
    const { taskQueue } = this.options;
    const wanted = new Set(
      (await this.options.repos()).slice(0, this.options.max ?? 100).map((repo) => residentTaskQueue(taskQueue, repo)),
    );
    for (const queue of wanted) {
      if (this.workers.has(queue)) continue;
      const worker = await createSwitchboardWorker({
        connection: this.options.connection,
        namespace: this.options.namespace,
        taskQueue: queue,
        activities: this.options.activities,
        activitiesOnly: true,
        activityPollers: 1,
        ...(this.options.dataConverter ? { dataConverter: this.options.dataConverter } : {}),
        ...(this.options.logger ? { logger: this.options.logger } : {}),
      });
      // A resident queue that fails is logged and forgotten (the next sync makes it again); it
      // must not take the worker process down with an unhandled rejection.
      const running = worker.run().catch((error: unknown) => {
        this.options.logger?.error(
          { taskQueue: queue, err: error },
          'a resident task queue worker failed; it is made again at the next sync',
        );
        if (this.workers.get(queue)?.worker === worker) this.workers.delete(queue);
      });
      this.workers.set(queue, { worker, running });
    }
    for (const [queue, entry] of this.workers) if (!wanted.has(queue)) await this.stopOne(queue, entry);
  }

  private async stopOne(queue: string, entry: { worker: Worker; running: Promise<void> }): Promise<void> {
    this.workers.delete(queue);
    if (entry.worker.getState() === 'RUNNING') entry.worker.shutdown();
    await entry.running.catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.syncing.catch(() => undefined);
    for (const [queue, entry] of [...this.workers]) await this.stopOne(queue, entry);
  }
}
