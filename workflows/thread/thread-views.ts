import type { ThreadState } from '../contracts';
import { currentDetails } from '../details';
import type { ThreadMemory } from './thread-memory';

/** The `state` query's answer. */
export function threadView(memory: ThreadMemory): ThreadState {
  const { threadId, stickyAgent, currentRunId, uncertain } = memory;
  return {
    threadId,
    ...(stickyAgent ? { stickyAgent } : {}),
    ...(currentRunId ? { currentRunId } : {}),
    queued: memory.queue.length,
    runCount: memory.runCount,
    saved: memory.saved.length,
    outcomes: memory.outcomes,
    ...(uncertain.length ? { unconfirmed: uncertain } : {}),
    ...memory.reviews.pendingView(),
  };
}

/** The Web UI's current details: phase, counts and agent, dropped inputs, and the runs (the current one linked). */
export function threadDetails(memory: ThreadMemory, namespace: string, dropped: string | undefined): string {
  const { threadId, currentRunId, runCount, stickyAgent, queue } = memory;
  return currentDetails({
    phase: currentRunId ? 'running' : queue.length > 0 || memory.deciding ? 'deciding' : 'idle',
    // The current run is linked on the Runs line below.
    note: [`${queue.length} queued`, `${runCount} run${runCount === 1 ? '' : 's'}`, ...(stickyAgent ? [`agent ${stickyAgent}`] : [])].join(
      ' · ',
    ),
    ...(dropped ? { dropped } : {}),
    runs: { namespace, threadId, ...(currentRunId ? { current: currentRunId } : {}) },
  });
}
