import { CANCEL_STOP } from '../cancel-as-stop';
import { MAX_STEER_CHARS, type ReplyTarget } from '../contracts';
import { THREAD_STEER_LENGTH } from './steer-length';
import { STEER_ADMITTED, ThreadInbox } from './thread-inbox';
import { agentSetup, message, SLACK, THREAD, threadWorld } from './thread-test-world';

/** A thread whose run `run:t:1` (ada's, general) is running, with the setup it was decided with. */
function running(options: Parameters<typeof threadWorld>[0] = {}) {
  const world = threadWorld(options);
  world.memory.currentRunId = 'run:t:1';
  world.memory.currentRun = { requester: 'ada', agent: 'general' };
  world.memory.facts = agentSetup();
  return { ...world, inbox: new ThreadInbox(world.memory, world.effects, SLACK) };
}

/** The same channel, another Slack thread. */
const elsewhere: ReplyTarget = { kind: 'slack', team: 'T1', channel: 'C1', threadTs: '2.0' };
const reply = (text: string, extra: Parameters<typeof message>[1] = {}) =>
  message(text, { messageId: 'r1', addressedToRun: true, ...extra });

describe('ThreadInbox', () => {
  it('queues a message once: a retry or a redelivery is a repeat', () => {
    const world = threadWorld();
    const inbox = new ThreadInbox(world.memory, world.effects, SLACK);
    expect(inbox.accept(message('hello'))).toBe(true);
    expect(inbox.accept(message('hello'))).toBe(false);
    expect(world.memory.queue.map((entry) => entry.messageId)).toEqual(['m1']);
    expect(world.log.calls).toEqual([]);
  });

  it('holds an automatic review for its debounce instead of queueing it', () => {
    const world = threadWorld();
    const inbox = new ThreadInbox(world.memory, world.effects, SLACK);
    inbox.accept(message('review', { review: { trigger: 'push', headSha: 'abc', debounceSeconds: 10 } }));
    expect(world.memory.queue).toEqual([]);
    expect(world.memory.reviews.waitMs(1_000)).toBe(10_000);
  });

  it("sends its requester's reply to the running run as a steer", () => {
    const world = running();
    world.inbox.accept(reply('use the v2 API'));
    expect(world.log.calls).toEqual([{ name: 'steer', input: { runId: 'run:t:1', text: 'use the v2 API', by: 'ada' } }]);
    expect(world.memory.outcomeOf('r1')).toEqual({ messageId: 'r1', kind: 'steered', runId: 'run:t:1' });
    expect(world.memory.queue).toEqual([]);
  });

  it('queues a steer as a new request when the run ended meanwhile', async () => {
    const world = running();
    const notFound = Promise.reject(new Error('workflow not found'));
    world.effects.steer = () => notFound;
    world.inbox.accept(reply('and then?'));
    // The inbox's own handler of the failure was attached first, so it has run once this one has.
    await notFound.catch(() => undefined);
    expect(world.memory.queue.map((entry) => entry.messageId)).toEqual(['r1']);
  });

  it("refuses, in the conversation, a reply from someone the admission does not let steer the run, and awaits the refusal's delivery at close", async () => {
    const world = running();
    const other = reply('stop that', { requester: { id: 'bob', surface: 'slack' }, replyTarget: elsewhere });
    world.inbox.accept(other);
    expect(world.memory.outcomeOf('r1')).toMatchObject({ kind: 'refused', code: 'not_requester' });
    expect(world.log.inputs('deliverReply')).toEqual([
      {
        effectKey: `${THREAD}/reply/r1`,
        replyTarget: elsewhere,
        text: expect.stringMatching(/belongs to someone else/),
      },
    ]);
    expect(world.patches).toEqual([STEER_ADMITTED]);
    expect(world.inbox.replies).toHaveLength(1);
    await Promise.all(world.inbox.replies);
  });

  it('sent every reply to the run in threads recorded before steers were admitted', () => {
    const world = running({ off: [STEER_ADMITTED] });
    world.inbox.accept(reply('stop that', { requester: { id: 'bob', surface: 'slack' } }));
    expect(world.memory.outcomeOf('r1')).toMatchObject({ kind: 'steered' });
    expect(world.log.names()).toEqual(['steer']);
  });

  it('refuses a reply longer than a steer may be, asking the length patch only for such a reply', () => {
    const world = running();
    world.inbox.accept(reply('x'.repeat(MAX_STEER_CHARS + 1)));
    expect(world.memory.outcomeOf('r1')).toMatchObject({ kind: 'refused', code: 'steer_too_long' });
    expect(world.patches).toEqual([THREAD_STEER_LENGTH, STEER_ADMITTED]);
  });

  it("answers the sendMessage update with the message's outcome once the thread decided it", async () => {
    const world = threadWorld();
    const inbox = new ThreadInbox(world.memory, world.effects, SLACK);
    const answer = inbox.answer(message('hello'));
    world.memory.queue.shift();
    world.memory.deciding = 'm1';
    world.wake();
    world.memory.remember({ messageId: 'm1', kind: 'run', runId: 'run:t:1' });
    world.wake();
    await expect(answer).resolves.toEqual({ messageId: 'm1', kind: 'run', runId: 'run:t:1' });
    // The same message again: its outcome, at once.
    await expect(inbox.answer(message('hello'))).resolves.toMatchObject({ kind: 'run' });
  });

  it('answers `queued` when the thread closes first, and `duplicate` for a repeat whose outcome was forgotten', async () => {
    const world = threadWorld({ carry: { runCount: 0, saved: [], queue: [], seen: ['old'], outcomes: [] } });
    const inbox = new ThreadInbox(world.memory, world.effects, SLACK);
    await expect(inbox.answer(message('again', { messageId: 'old' }))).resolves.toEqual({ messageId: 'old', kind: 'duplicate' });
    const waiting = inbox.answer(message('hello'));
    world.memory.closing = true;
    world.wake();
    await expect(waiting).resolves.toEqual({ messageId: 'm1', kind: 'queued' });
  });

  it('passes a stop to the running run and keeps it for a run still starting; without a run, a stop does nothing', () => {
    const idle = threadWorld();
    new ThreadInbox(idle.memory, idle.effects, SLACK).stop({ by: 'ada' });
    expect(idle.log.calls).toEqual([]);
    expect(idle.memory.pendingStop).toBeUndefined();

    const world = running();
    world.inbox.stop(undefined);
    expect(world.memory.pendingStop).toEqual({});
    world.inbox.cancel();
    expect(world.memory.cancelled).toBe(true);
    expect(world.memory.pendingStop).toEqual(CANCEL_STOP);
    expect(world.log.calls).toEqual([
      { name: 'stop', input: { runId: 'run:t:1' } },
      { name: 'stop', input: { runId: 'run:t:1', ...CANCEL_STOP } },
    ]);
  });
});
