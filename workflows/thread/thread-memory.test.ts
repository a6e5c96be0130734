import type { ThreadCarry } from '../contracts';
import { OUTCOMES_KEPT, SAVED_EXCHANGES, SEEN_MESSAGE_IDS, THREAD_HISTORY_LIMIT, ThreadMemory } from './thread-memory';
import { message, THREAD } from './thread-test-world';

const push = (id: string) => message('look at this', { messageId: id, review: { trigger: 'push', headSha: id, debounceSeconds: 30 } });

describe('ThreadMemory', () => {
  it('starts empty, or from its carry (the same lists, so the next carry holds what changed)', () => {
    const fresh = new ThreadMemory(THREAD);
    expect(fresh.carry()).toEqual({ runCount: 0, saved: [], queue: [], seen: [], outcomes: [] });
    const carry: ThreadCarry = {
      stickyAgent: 'explore',
      workspaceHost: 'host-a',
      runCount: 3,
      saved: [{ request: 'r', answer: 'a', agent: 'explore', outcome: 'completed' }],
      queue: [message('next')],
      seen: ['m0'],
      outcomes: [{ messageId: 'm0', kind: 'duplicate' }],
      uncertain: [],
      reviews: { reviewed: ['abc'] },
      planDraft: { plan: { name: 'p', repo: 'acme/app', units: [] }, requester: 'ada', runId: 'run:t:3' },
    };
    const memory = new ThreadMemory(THREAD, carry);
    expect(memory.queue).toBe(carry.queue);
    memory.see('m1');
    // An empty unconfirmed list is left out of the carry, as the thread always did.
    const { uncertain: _empty, ...rest } = carry;
    expect(memory.carry()).toEqual({ ...rest, seen: ['m0', 'm1'] });
  });

  it('keeps the last outcomes, and a message is no longer being decided once its outcome is kept', () => {
    const memory = new ThreadMemory(THREAD);
    memory.deciding = 'm7';
    memory.remember({ messageId: 'm6', kind: 'duplicate' });
    expect(memory.deciding).toBe('m7');
    expect(memory.pending('m7')).toBe(true);
    memory.remember({ messageId: 'm7', kind: 'run', runId: 'run:t:1' });
    expect(memory.deciding).toBeUndefined();
    expect(memory.pending('m7')).toBe(false);
    expect(memory.outcomeOf('m7')).toEqual({ messageId: 'm7', kind: 'run', runId: 'run:t:1' });
    for (let i = 0; i < OUTCOMES_KEPT + 5; i++) memory.remember({ messageId: `x${i}`, kind: 'duplicate' });
    expect(memory.outcomes).toHaveLength(OUTCOMES_KEPT);
    expect(memory.outcomeOf('m7')).toBeUndefined();
  });

  it('sees each message id once, remembering the last ones', () => {
    const memory = new ThreadMemory(THREAD);
    expect(memory.see('m1')).toBe(true);
    expect(memory.see('m1')).toBe(false);
    for (let i = 0; i < SEEN_MESSAGE_IDS; i++) memory.see(`x${i}`);
    expect(memory.seen).toHaveLength(SEEN_MESSAGE_IDS);
    expect(memory.see('m1')).toBe(true);
  });

  it('saves the last exchanges and gives them to the next run as its context', () => {
    const memory = new ThreadMemory(THREAD);
    for (let i = 0; i < SAVED_EXCHANGES + 2; i++)
      memory.save({ request: `q${i}`, answer: `a${i}`, agent: 'general', outcome: 'completed' });
    expect(memory.saved).toHaveLength(SAVED_EXCHANGES);
    expect(memory.savedContext().slice(0, 2)).toEqual([
      { role: 'user', text: 'q2' },
      { role: 'assistant', text: '(general, completed) a2', toolCalls: [] },
    ]);
  });

  it('takes a queued message before an automatic review, and the review only once its debounce is over', () => {
    const memory = new ThreadMemory(THREAD);
    const held = memory.reviews.version;
    expect(memory.woken(held)).toBe(false);
    memory.reviews.hold(push('p1'), 0);
    expect(memory.woken(held)).toBe(true);
    expect(memory.ready(29_999)).toBe(false);
    memory.queue.push(message('hello', { messageId: 'm2' }));
    expect(memory.ready(0)).toBe(true);
    expect(memory.next().messageId).toBe('m2');
    expect(memory.ready(30_000)).toBe(true);
    expect(memory.next().messageId).toBe('p1');
    expect(memory.ready(60_000)).toBe(false);
    memory.cancelled = true;
    expect(memory.woken(memory.reviews.version)).toBe(true);
  });

  it('continues-as-new when Temporal suggests it or its history is long, never once cancelled', () => {
    const memory = new ThreadMemory(THREAD);
    expect(memory.continueDue({ continueAsNewSuggested: false, historyLength: THREAD_HISTORY_LIMIT })).toBe(false);
    expect(memory.continueDue({ continueAsNewSuggested: false, historyLength: THREAD_HISTORY_LIMIT + 1 })).toBe(true);
    expect(memory.continueDue({ continueAsNewSuggested: true, historyLength: 10 })).toBe(true);
    memory.cancelled = true;
    expect(memory.continueDue({ continueAsNewSuggested: true, historyLength: THREAD_HISTORY_LIMIT + 1 })).toBe(false);
  });

  it('carries a review waiting its turn and a drafted plan, and leaves out what is empty', () => {
    const memory = new ThreadMemory(THREAD);
    memory.reviews.hold(push('p1'), 0);
    memory.stickyAgent = 'review';
    expect(memory.carry()).toMatchObject({ stickyAgent: 'review', reviews: { reviewed: [], pending: { dueAt: 30_000 } } });
    expect(memory.carry()).not.toHaveProperty('planDraft');
    expect(memory.carry()).not.toHaveProperty('workspaceHost');
  });
});
