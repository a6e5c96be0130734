import { ThreadMemory } from './thread-memory';
import { message, THREAD, unconfirmedReply } from './thread-test-world';
import { threadDetails, threadView } from './thread-views';

describe("a thread's views", () => {
  it('answers the state query with counts, and names only what there is', () => {
    const memory = new ThreadMemory(THREAD);
    expect(threadView(memory)).toEqual({ threadId: THREAD, queued: 0, runCount: 0, saved: 0, outcomes: [] });
    memory.stickyAgent = 'explore';
    memory.currentRunId = 'run:t:2';
    memory.runCount = 2;
    memory.queue.push(message('next'));
    memory.uncertain.push(unconfirmedReply('k'));
    memory.reviews.hold(message('x', { messageId: 'p', review: { trigger: 'opened' } }), Date.UTC(2026, 0, 1));
    expect(threadView(memory)).toMatchObject({
      stickyAgent: 'explore',
      currentRunId: 'run:t:2',
      queued: 1,
      runCount: 2,
      unconfirmed: [{ effectKey: 'k' }],
      pendingReview: { trigger: 'opened', dueAt: '2026-01-01T00:00:00.000Z' },
    });
  });

  it("shows the thread's phase, counts, agent and dropped inputs in the Web UI's details", () => {
    const memory = new ThreadMemory(THREAD);
    expect(threadDetails(memory, 'default', undefined)).toMatch(/^\*\*Phase:\*\* idle\n\n- 0 queued · 0 runs\n- \*\*Runs:\*\*/);
    memory.deciding = 'm1';
    expect(threadDetails(memory, 'default', undefined)).toMatch(/\*\*Phase:\*\* deciding/);
    memory.currentRunId = 'run:t:1';
    memory.runCount = 1;
    memory.stickyAgent = 'explore';
    const details = threadDetails(memory, 'ns', '1 malformed signal dropped');
    expect(details).toMatch(/\*\*Phase:\*\* running/);
    expect(details).toContain('- 0 queued · 1 run · agent explore');
    expect(details).toContain('- **Dropped inputs:** 1 malformed signal dropped');
    expect(details).toContain('[run:t:1](/namespaces/ns/workflows/run%3At%3A1) (running)');
  });
});
