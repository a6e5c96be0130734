import { WorkflowNotFoundError } from '@temporalio/client';
import { BOT, startSlackKit, type SlackKit } from './helpers/slack-kit';
import { messageSignal } from '../workflows/contracts';

jest.setTimeout(60_000);

const CHANNEL = 'C0DELIVERY';
const ALICE = 'U0ALICE';

describe('Slack front end: verification, redelivery, rate limits and a stopped worker', () => {
  let kit: SlackKit;
  beforeAll(async () => {
    kit = await startSlackKit('slack-delivery');
  });
  afterAll(async () => {
    await kit.close();
  });

  const mentionEvent = (ts: string, text: string) => ({
    type: 'app_mention',
    channel: CHANNEL,
    user: ALICE,
    text: `<@${BOT}> ${text}`,
    ts,
    event_ts: ts,
  });
  const threadOf = (ts: string) => `thread:slack:T0LOCAL:${CHANNEL}:${ts}`;
  const exists = (workflowId: string) =>
    kit.env.client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        () => true,
        (error: unknown) => {
          if (error instanceof WorkflowNotFoundError) return false;
          throw error;
        },
      );
  const signalsTo = async (workflowId: string) => {
    const history = await kit.env.client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === messageSignal.name)
      .length;
  };
  const posted = (ts: string, type: string) => kit.marked(CHANNEL, ts, type);

  it('refuses a bad signature and a stale timestamp with 401, and starts nothing', async () => {
    const forged = kit.slack.state.add({ channel: CHANNEL, user: ALICE, text: 'forged' });
    const badSignature = await kit.slack.events!.sendEvent(mentionEvent(forged.ts, 'hello'), { signWith: 'not-the-secret' });
    expect(badSignature.result.status).toBe(401);
    const stale = kit.slack.state.add({ channel: CHANNEL, user: ALICE, text: 'stale' });
    const old = await kit.slack.events!.sendEvent(mentionEvent(stale.ts, 'hello'), { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect(old.result.status).toBe(401);
    // Give a wrongly accepted event time to land before looking.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await exists(threadOf(forged.ts))).toBe(false);
    expect(await exists(threadOf(stale.ts))).toBe(false);
  });

  it('signals a retried delivery and a repeated event id only once', async () => {
    const model = kit.script('once', [{ text: 'Answered once.' }]);
    const said = await kit.slack.userSays({ channel: CHANNEL, user: ALICE, text: `<@${BOT}> model:scripted:${model} once please` });
    const delivery = said.deliveries.find((entry) => (entry.envelope.event as { type: string }).type === 'app_mention')!;
    const threadId = threadOf(said.message.ts);
    const runId = await kit.runFor(threadId, delivery.envelope.event_id as string);
    const retried = await kit.slack.events!.sendJson(delivery.envelope, { retryNum: 1 });
    expect(retried.status).toBe(200);
    const repeated = await kit.slack.events!.sendJson(delivery.envelope);
    expect(repeated.status).toBe(200);
    await kit.result(runId);
    await kit.until(() => posted(said.message.ts, 'switchboard_reply').length > 0, 'the answer');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await signalsTo(threadId)).toBe(1);
    expect((await kit.threadState(threadId)).runCount).toBe(1);
    expect(posted(said.message.ts, 'switchboard_reply')).toHaveLength(1);
  });

  it('a 429 storm delays the card, honouring Retry-After, without losing its last state', async () => {
    kit.slack.faults.rateLimit('chat.update', 3, 1);
    const model = kit.script('storm', [
      {
        text: 'Working.',
        toolCalls: [
          { name: 'update_status', input: { summary: 'halfway there' } },
          { name: 'bash', input: { command: 'sleep 1' } },
        ],
      },
      { text: 'Finished despite the storm.' },
    ]);
    const said = await kit.slack.userSays({ channel: CHANNEL, user: ALICE, text: `<@${BOT}> agent:coding model:scripted:${model} go` });
    const delivery = said.deliveries.find((entry) => (entry.envelope.event as { type: string }).type === 'app_mention')!;
    const runId = await kit.runFor(threadOf(said.message.ts), delivery.envelope.event_id as string);
    expect((await kit.result(runId)).outcome).toBe('completed');
    await kit.until(() => posted(said.message.ts, 'switchboard_reply').length > 0, 'the answer');

    const cards = posted(said.message.ts, 'switchboard_card');
    expect(cards).toHaveLength(1);
    const updates = kit.slack.callsTo('chat.update').filter((call) => call.params.ts === cards[0].ts);
    expect(updates.filter((call) => call.outcome === 'rate_limited')).toHaveLength(3);
    // Each retry waited out the Retry-After second.
    for (let index = 1; index < updates.length; index += 1) {
      if (updates[index - 1].outcome === 'rate_limited') expect(updates[index].at - updates[index - 1].at).toBeGreaterThanOrEqual(950);
    }
    expect(updates.at(-1)!.outcome).toBe('ok');
    const final = JSON.stringify(cards[0].blocks);
    expect(final).toContain('Completed');
    expect(final).toContain('Finished despite the storm.');
  });

  it('an unknown post result is found by its marker and never posted twice', async () => {
    kit.slack.faults.dropResponse('chat.postMessage', 1);
    const model = kit.script('dropped', [{ text: 'Answered after a dropped response.' }]);
    const said = await kit.slack.userSays({ channel: CHANNEL, user: ALICE, text: `<@${BOT}> model:scripted:${model} go` });
    const delivery = said.deliveries.find((entry) => (entry.envelope.event as { type: string }).type === 'app_mention')!;
    const runId = await kit.runFor(threadOf(said.message.ts), delivery.envelope.event_id as string);
    await kit.result(runId);
    await kit.until(() => posted(said.message.ts, 'switchboard_reply').length > 0, 'the answer');
    expect(
      kit.slack.callsTo('chat.postMessage').filter((call) => call.params.thread_ts === said.message.ts && call.outcome === 'dropped'),
    ).toHaveLength(1);
    expect(posted(said.message.ts, 'switchboard_card')).toHaveLength(1);
    expect(JSON.stringify(posted(said.message.ts, 'switchboard_card')[0].blocks)).toContain('Completed');
  });

  it('acknowledges in under 3 s with the worker stopped; the run starts when a worker returns', async () => {
    await kit.stopWorker();
    try {
      const model = kit.script('later', [{ text: 'Answered after the worker came back.' }]);
      const said = await kit.slack.userSays({ channel: CHANNEL, user: ALICE, text: `<@${BOT}> model:scripted:${model} whenever you can` });
      const delivery = said.deliveries.find((entry) => (entry.envelope.event as { type: string }).type === 'app_mention')!;
      expect(delivery.result.status).toBe(200);
      expect(delivery.result.elapsedMs).toBeLessThan(3_000);
      const threadId = threadOf(said.message.ts);
      await kit.until(() => exists(threadId), 'the thread workflow');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(posted(said.message.ts, 'switchboard_card')).toHaveLength(0);
      await kit.startWorker();
      const runId = await kit.runFor(threadId, delivery.envelope.event_id as string);
      expect((await kit.result(runId)).finalText).toBe('Answered after the worker came back.');
      await kit.until(() => posted(said.message.ts, 'switchboard_reply').length > 0, 'the answer');
    } finally {
      await kit.startWorker().catch(() => undefined);
    }
  });
});
