import { BOT, startSlackKit, type SlackKit } from './helpers/slack-kit';
import { runStatusQuery, steerSignal } from '../workflows/contracts';

jest.setTimeout(60_000);

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';

describe('Slack front end: runs from mentions, replies, steers and stops', () => {
  let kit: SlackKit;
  beforeAll(async () => {
    // Only Alice may use the coding agent; Bob may use the others.
    kit = await startSlackKit('slack-runs', { restrict: { agents: { coding: [ALICE] } } });
  });
  afterAll(async () => {
    await kit.close();
  });

  async function mention(text: string, user = ALICE) {
    const said = await kit.slack.userSays({ channel: CHANNEL, user, text: `<@${BOT}> ${text}` });
    const mentionDelivery = said.deliveries.find((delivery) => (delivery.envelope.event as { type: string }).type === 'app_mention')!;
    expect(mentionDelivery.result.status).toBe(200);
    const threadId = `thread:slack:T0LOCAL:${CHANNEL}:${said.message.ts}`;
    const runId = await kit.runFor(threadId, mentionDelivery.envelope.event_id as string);
    return { ts: said.message.ts, threadId, runId };
  }

  const answers = (ts: string) => kit.marked(CHANNEL, ts, 'switchboard_reply');
  const cards = (ts: string) => kit.marked(CHANNEL, ts, 'switchboard_card');

  it('a signed mention starts a run; its card goes from started to the final answer, with one card and one answer', async () => {
    const model = kit.script('hello', [
      {
        text: 'Looking.',
        toolCalls: [
          { name: 'update_status', input: { summary: 'reading the notes' } },
          { name: 'bash', input: { command: 'sleep 4; echo ok' } },
        ],
      },
      { text: 'All done: the notes say ok.' },
    ]);
    const { ts, runId } = await mention(`agent:coding model:scripted:${model} read the notes`);
    const record = await kit.result(runId);
    expect(record).toMatchObject({ outcome: 'completed', requester: { id: ALICE, surface: 'slack' } });
    await kit.until(() => answers(ts).length > 0, 'the answer in the thread');

    expect(cards(ts)).toHaveLength(1);
    expect(answers(ts)).toHaveLength(1);
    expect(answers(ts)[0].text).toBe('All done: the notes say ok.');
    const posts = kit.slack.callsTo('chat.postMessage').filter((call) => call.params.thread_ts === ts);
    expect(posts.map((call) => (call.params.metadata as { event_type: string }).event_type)).toEqual([
      'switchboard_card',
      'switchboard_reply',
    ]);

    // The first state is the run starting, with a Stop button and a link to the run.
    const first = JSON.stringify(posts[0].params.blocks);
    expect(first).toContain('coding');
    expect(first).toContain('switchboard_stop');
    expect(first).toContain(`http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(runId)}`);
    // Some update showed the latest update_status text; the last one is final, with the answer and no button.
    const card = cards(ts)[0];
    const updates = kit.slack.callsTo('chat.update').filter((call) => call.params.ts === card.ts);
    expect(updates.some((call) => JSON.stringify(call.params.blocks).includes('reading the notes'))).toBe(true);
    const final = JSON.stringify(card.blocks);
    expect(final).toContain('Completed');
    expect(final).toContain('All done: the notes say ok.');
    expect(final).toContain('Turns:* 2/');
    expect(final).not.toContain('switchboard_stop');
    expect(card.metadata?.event_payload).toEqual({ effect_key: `${runId}/card/0`, run_id: runId });
  });

  it('a thread reply continues the thread with the sticky agent', async () => {
    const first = kit.script('sticky-1', [{ text: 'The first answer.' }]);
    const { ts, threadId, runId } = await mention(`agent:explore model:scripted:${first} look around`);
    await kit.result(runId);
    await kit.until(() => answers(ts).length > 0, 'the first answer');

    // The scripted model picks its turn by the assistant messages it sees: the saved exchange is one.
    const second = kit.script('sticky-2', [{ text: 'not reached: the saved context is missing' }, { text: 'The second answer.' }]);
    const reply = await kit.slack.userSays({ channel: CHANNEL, user: ALICE, text: `model:scripted:${second} and then?`, threadTs: ts });
    const runTwo = await kit.runFor(threadId, reply.deliveries[0].envelope.event_id as string);
    expect(runTwo).toBe(`${threadId.replace('thread:', 'run:thread:')}:2`);
    const record = await kit.result(runTwo);
    expect(record).toMatchObject({ outcome: 'completed', finalText: 'The second answer.', request: 'and then?' });
    expect(record.profile.agent).toBe('explore');
    // The saved exchange (request and answer) came before the new request and answer.
    expect(record.messageCount).toBe(4);
    expect((await kit.threadState(threadId)).stickyAgent).toBe('explore');
    await kit.until(() => answers(ts).length === 2, 'the second answer');
    expect(cards(ts)).toHaveLength(2);
  });

  it('a reply during a run steers it', async () => {
    const model = kit.script('steer', [
      { text: 'Working with v1.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3 && echo slept' } }] },
      { alternatives: [{ when: { lastUserIncludes: 'v2' }, text: 'Switching to the v2 API as asked.' }, { text: 'Staying on v1.' }] },
    ]);
    const { ts, threadId, runId } = await mention(`agent:coding model:scripted:${model} use the api`);
    await kit.until(
      async () => (await kit.env.client.workflow.getHandle(runId).query(runStatusQuery)).phase === 'tools',
      'the command to run',
    );
    const reply = await kit.slack.userSays({ channel: CHANNEL, user: ALICE, text: 'use the v2 API please', threadTs: ts });
    const record = await kit.result(runId);
    expect(record.finalText).toBe('Switching to the v2 API as asked.');
    const outcome = (await kit.threadState(threadId)).outcomes.find((entry) => entry.messageId === reply.deliveries[0].envelope.event_id);
    expect(outcome).toMatchObject({ kind: 'steered', runId });
  });

  const longRun = () =>
    kit.script(`long-${Date.now()}`, [
      { text: 'A long job.', toolCalls: [{ name: 'bash', input: { command: 'sleep 120; echo never' } }] },
      { text: 'should not be reached' },
    ]);

  it('the stop reaction on the card settles the run stopped', async () => {
    const { ts, runId } = await mention(`agent:coding model:scripted:${longRun()} wait`);
    const card = await kit.until(() => cards(ts)[0], 'the card');
    expect((await kit.slack.react({ channel: CHANNEL, user: ALICE, ts: card.ts, name: 'octagonal_sign' })).status).toBe(200);
    const record = await kit.result(runId);
    expect(record.outcome).toBe('stopped');
    expect(record.endedBy).toContain(`stopped by ${ALICE}`);
    await kit.until(() => JSON.stringify(cards(ts)[0].blocks).includes('Stopped'), 'the final card');
  });

  it("the stop reaction on the request stops the thread's run", async () => {
    const { ts, runId } = await mention(`agent:coding model:scripted:${longRun()} wait`);
    await kit.until(() => cards(ts)[0], 'the card');
    await kit.slack.react({ channel: CHANNEL, user: ALICE, ts, name: 'octagonal_sign' });
    expect((await kit.result(runId)).outcome).toBe('stopped');
  });

  it("the Stop button settles the run stopped for its requester; another's click and reply neither stop nor steer it", async () => {
    const { ts, threadId, runId } = await mention(`agent:coding model:scripted:${longRun()} wait`);
    const card = await kit.until(() => cards(ts)[0], 'the card');
    // Bob is not the requester (nor may he use the coding agent): his click is refused, only to him.
    await kit.slack.clickButton({ channel: CHANNEL, user: BOB, messageTs: card.ts, actionId: 'switchboard_stop', value: runId });
    await kit.until(() => kit.slack.callsTo('chat.postEphemeral').some((call) => call.params.user === BOB), 'the refusal to Bob');
    expect(JSON.stringify(kit.slack.callsTo('chat.postEphemeral').at(-1)!.params.text)).toContain('belongs to someone else');
    // His reply in the thread is answered there and never reaches the run.
    const reply = await kit.slack.userSays({ channel: CHANNEL, user: BOB, text: 'delete the tests instead', threadTs: ts });
    const eventId = reply.deliveries[0].envelope.event_id as string;
    const outcome = await kit.until(
      async () => (await kit.threadState(threadId)).outcomes.find((entry) => entry.messageId === eventId),
      "the thread's answer to Bob",
    );
    expect(outcome).toMatchObject({ kind: 'refused', code: 'not_requester' });
    await kit.until(() => answers(ts).some((message) => message.text?.includes('belongs to someone else')), 'the refusal in the thread');
    const status = await kit.env.client.workflow.getHandle(runId).query(runStatusQuery);
    expect(status.outcome).toBeUndefined();
    const history = await kit.env.client.workflow.getHandle(runId).fetchHistory();
    expect(history.events?.some((event) => event.workflowExecutionSignaledEventAttributes?.signalName === steerSignal.name)).toBe(false);

    const click = await kit.slack.clickButton({
      channel: CHANNEL,
      user: ALICE,
      messageTs: card.ts,
      actionId: 'switchboard_stop',
      value: runId,
    });
    expect(click.status).toBe(200);
    const record = await kit.result(runId);
    expect(record.outcome).toBe('stopped');
    expect(record.endedBy).toBe(`stopped by ${ALICE}: the Stop button`);
    // The card says who stopped it (a mention Slack shows by name), and its last words are marked unfinished, not an answer.
    const final = await kit.until(() => {
      const blocks = JSON.stringify(cards(ts)[0].blocks);
      return blocks.includes('Stopped') ? blocks : undefined;
    }, 'the final card');
    expect(final).toContain(`Stopped by <@${ALICE}>: the Stop button`);
    expect(final).toContain('_Unfinished: it was stopped before it answered. What it had written so far:_');
    const answer = await kit.until(
      () => answers(ts).find((message) => message.text?.includes('The run was stopped')),
      'the thread’s answer',
    );
    expect(answer.text).toBe(
      `The run was stopped by <@${ALICE}> (the Stop button) before it finished. What it had written so far, unfinished:\n\nA long job.`,
    );
  });

  it('attach_file posts a workspace file into the thread through the upload flow, once', async () => {
    const model = kit.script('attach', [
      {
        text: 'Writing the report.',
        toolCalls: [{ name: 'write_file', input: { path: 'out/summary.txt', content: 'three findings\n' } }],
      },
      { text: 'Attaching it.', toolCalls: [{ name: 'attach_file', input: { path: 'out/summary.txt', comment: 'The summary.' } }] },
      { text: 'Attached: {{lastToolResult:attach_file}}' },
    ]);
    const { ts, runId } = await mention(`agent:coding model:scripted:${model} summarise`);
    const record = await kit.result(runId);
    expect(record.profile.tools).toContain('attach_file');
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['write_file', true],
      ['attach_file', true],
    ]);
    const shared = kit.slack.state.thread(CHANNEL, ts).filter((message) => message.files?.length);
    expect(shared).toHaveLength(1);
    expect(shared[0].files![0]).toMatchObject({ name: 'summary.txt', size: 15 });
    expect(kit.slack.state.files.get(shared[0].files![0].id)?.content?.toString()).toBe('three findings\n');
    expect(JSON.stringify(shared[0].blocks)).toContain('The summary.');
    expect(record.finalText).toContain('Attached out/summary.txt to the conversation.');
  });
});
