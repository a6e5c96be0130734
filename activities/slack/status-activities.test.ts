import { createLogger } from '../../infra/logger';
import { startLocalSlack, type LocalSlack } from '../../emulators/local-slack';
import type { RunStatus } from '../../workflows/contracts';
import { createSlackStatusActivities } from './status-activities';
import { createSlackWebClient } from './slack-client';

const TOKEN = 'xoxb-unit';

describe('Slack status activities against the local Slack', () => {
  let slack: LocalSlack;
  let activities: ReturnType<typeof createSlackStatusActivities>;
  let threadTs: string;
  const target = () => ({ kind: 'slack' as const, team: 'T0LOCAL', channel: 'C1', threadTs });
  const status: RunStatus = {
    runId: 'run:t:1',
    agent: 'general',
    model: 'scripted:x',
    phase: 'thinking',
    turns: 1,
    turnGuard: 40,
    tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
    cost: { usd: 0, searches: 0, searchUsd: 0, unpriced: [] },
    elapsedMs: 65_000,
    budget: { minutes: 30, boundedBy: 'agent', description: '30 minutes (general agent)' },
  };

  beforeAll(async () => {
    slack = await startLocalSlack({ botToken: TOKEN });
  });
  afterAll(async () => {
    await slack.close();
  });
  beforeEach(() => {
    slack.faults.clear();
    threadTs = slack.state.add({ channel: 'C1', user: 'U1', text: 'please' }).ts;
    activities = createSlackStatusActivities({
      client: createSlackWebClient({ token: TOKEN, apiUrl: slack.apiUrl }),
      logger: createLogger({ level: 'silent' }),
      namespace: 'default',
    });
  });
  const ours = () => slack.state.thread('C1', threadTs).filter((message) => message.metadata);

  it('a card whose first post was never confirmed: posted afresh under the next key, and the first edited once it turns up', async () => {
    const first = { runId: 'run:t:2', effectKey: 'run:t:2/card/0', replyTarget: target(), status, final: false };
    // Lost in flight: the post never happened, and the look afterwards finds nothing.
    slack.faults.loseRequest('chat.postMessage');
    await expect(activities.statusCard(first)).resolves.toMatchObject({ status: 'unconfirmed' });
    expect(ours()).toHaveLength(0);
    const next = { ...first, effectKey: 'run:t:2/card/1', earlierKeys: ['run:t:2/card/0'] };
    await expect(activities.statusCard(next)).resolves.toEqual({ status: 'confirmed' });
    expect(ours().map((message) => message.metadata?.event_payload.effect_key)).toEqual(['run:t:2/card/1']);
    // The first post turns up after all (another worker's late request): the next update edits both, posts none.
    slack.state.add({
      ...ours()[0],
      ts: undefined,
      metadata: { event_type: 'switchboard_card', event_payload: { effect_key: 'run:t:2/card/0', run_id: 'run:t:2' } },
    });
    const final = {
      ...next,
      status: { ...status, phase: 'finished' as const, outcome: 'completed' as const },
      final: true,
      answer: 'done',
    };
    await expect(activities.statusCard(final)).resolves.toEqual({ status: 'confirmed' });
    expect(ours()).toHaveLength(2);
    for (const card of ours()) expect(JSON.stringify(card.blocks)).toContain('Completed');
  });

  it('posts the card once and updates it afterwards, even from a fresh worker', async () => {
    const input = { runId: 'run:t:1', effectKey: 'run:t:1/card/0', replyTarget: target(), status, final: false };
    await expect(activities.statusCard(input)).resolves.toEqual({ status: 'confirmed' });
    const fresh = createSlackStatusActivities({
      client: createSlackWebClient({ token: TOKEN, apiUrl: slack.apiUrl }),
      logger: createLogger({ level: 'silent' }),
      namespace: 'default',
    });
    await expect(
      fresh.statusCard({ ...input, status: { ...status, phase: 'finished', outcome: 'completed' }, final: true, answer: 'done' }),
    ).resolves.toEqual({ status: 'confirmed' });
    expect(ours()).toHaveLength(1);
    expect(ours()[0].updates).toBe(1);
    expect(JSON.stringify(ours()[0].blocks)).toContain('Completed');
    expect(JSON.stringify(ours()[0].blocks)).toContain('1m 5s');
  });

  it('splits a long answer into parts, each posted once, and a repeat posts nothing', async () => {
    const code = Array.from({ length: 400 }, (_, index) => `line ${index}: ${'z'.repeat(20)}`).join('\n');
    const input = { effectKey: 'run:t:1/answer', replyTarget: target(), text: `Result:\n\`\`\`\n${code}\n\`\`\`` };
    await expect(activities.deliverReply(input)).resolves.toEqual({ status: 'confirmed' });
    const parts = ours();
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.text.length).toBeLessThanOrEqual(3_900);
      expect((part.text.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(parts.map((part) => part.metadata?.event_payload.part)).toEqual(parts.map((_, index) => index + 1));
    await expect(activities.deliverReply(input)).resolves.toEqual({ status: 'confirmed' });
    expect(ours()).toHaveLength(parts.length);
  });

  it('an unknown result not found in the thread is unconfirmed and never sent again', async () => {
    slack.faults.serverErrors('chat.postMessage', 1, 503);
    const input = { effectKey: 'run:t:9/answer', replyTarget: target(), text: 'maybe' };
    await expect(activities.deliverReply(input)).resolves.toMatchObject({ status: 'unconfirmed' });
    await expect(activities.deliverReply(input)).resolves.toMatchObject({ status: 'unconfirmed' });
    expect(
      slack
        .callsTo('chat.postMessage')
        .filter(
          (call) => (call.params.metadata as { event_payload: { effect_key: string } }).event_payload.effect_key === 'run:t:9/answer',
        ),
    ).toHaveLength(1);
    expect(ours()).toHaveLength(0);
  });

  it('turns a 429 into a retryable failure that waits for Retry-After, having posted nothing', async () => {
    slack.faults.rateLimit('chat.postMessage', 1, 7);
    const failure = activities.deliverReply({ effectKey: 'run:t:2/answer', replyTarget: target(), text: 'later' });
    await expect(failure).rejects.toMatchObject({ type: 'slack_rate_limited', nextRetryDelay: 7_000, nonRetryable: false });
    await expect(activities.deliverReply({ effectKey: 'run:t:2/answer', replyTarget: target(), text: 'later' })).resolves.toEqual({
      status: 'confirmed',
    });
    expect(ours()).toHaveLength(1);
  });

  it('answers a refusal (no such thread) as refused', async () => {
    const input = { effectKey: 'x', replyTarget: { ...target(), threadTs: '1.000000' }, text: 'hi' };
    await expect(activities.deliverReply(input)).resolves.toMatchObject({
      status: 'refused',
      reason: expect.stringContaining('thread_not_found'),
    });
  });
});
