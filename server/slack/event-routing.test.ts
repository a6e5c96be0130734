import { routeSlackMessage } from './event-routing';

const context = { teamId: 'T1', eventId: 'Ev1', botUserId: 'UBOT' };

describe('routeSlackMessage', () => {
  it('starts a thread from a channel mention, keyed by the mention, with the mention stripped', () => {
    const routed = routeSlackMessage(
      { type: 'app_mention', channel: 'C1', user: 'U1', text: '<@UBOT>  agent:explore look', ts: '10.1' },
      context,
    );
    expect(routed).toEqual({
      kind: 'start',
      threadId: 'thread:slack:T1:C1:10.1',
      input: { threadId: 'thread:slack:T1:C1:10.1', replyTarget: { kind: 'slack', team: 'T1', channel: 'C1', threadTs: '10.1' } },
      message: { messageId: 'Ev1', text: 'agent:explore look', requester: { id: 'U1', surface: 'slack' }, channelId: 'C1' },
    });
  });

  it('addresses a mention inside a thread to its running run', () => {
    const routed = routeSlackMessage(
      { type: 'app_mention', channel: 'C1', user: 'U1', text: '<@UBOT> more', ts: '12.0', thread_ts: '10.1' },
      context,
    );
    expect(routed).toMatchObject({ kind: 'start', threadId: 'thread:slack:T1:C1:10.1', message: { addressedToRun: true } });
  });

  it('continues a thread from a plain reply, addressed to the run', () => {
    const routed = routeSlackMessage(
      { type: 'message', channel: 'C1', channel_type: 'channel', user: 'U1', text: 'use v2', ts: '11.0', thread_ts: '10.1' },
      context,
    );
    expect(routed).toMatchObject({
      kind: 'continue',
      threadId: 'thread:slack:T1:C1:10.1',
      message: { addressedToRun: true, text: 'use v2' },
    });
  });

  it('routes a private DM to the orchestrator by default', () => {
    const routed = routeSlackMessage(
      { type: 'message', channel: 'D1', channel_type: 'im', user: 'U1', text: 'status?', ts: '9.0' },
      context,
    );
    expect(routed).toMatchObject({ kind: 'start', message: { defaultAgent: 'orchestrator' } });
  });

  it.each([
    ['an edit', { subtype: 'message_changed' }],
    ['a delete', { subtype: 'message_deleted' }],
    ['a bot', { bot_id: 'B9' }],
    ['our own message', { user: 'UBOT' }],
    ['a top-level channel message', { thread_ts: undefined }],
    ['a reply that mentions us (it arrives as app_mention)', { text: '<@UBOT> hi' }],
  ])('ignores %s', (_what, change) => {
    const event = {
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: 'hi',
      ts: '11.0',
      thread_ts: '10.1',
      ...change,
    };
    expect(routeSlackMessage(event, context).kind).toBe('ignore');
  });

  it.each([
    ['a channel that is not a Slack id', { channel: 'C1:x' }, /channel/],
    ['a 1,202-character channel', { channel: 'C'.repeat(1202) }, /channel/],
    ['a thread ts that is not a timestamp', { thread_ts: '1e300' }, /ts/],
    ['a ts with a colon', { thread_ts: '10.1:x' }, /ts/],
  ])('ignores %s as malformed, before any id is built', (_what, change, why) => {
    const event = {
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: 'hi',
      ts: '11.0',
      thread_ts: '10.1',
      ...change,
    };
    expect(routeSlackMessage(event, context)).toEqual({ kind: 'ignore', why: expect.stringMatching(why), malformed: true });
  });

  it('ignores a team id that is not a Slack id', () => {
    const event = { type: 'app_mention', channel: 'C1', user: 'U1', text: '<@UBOT> hi', ts: '10.1' };
    expect(routeSlackMessage(event, { ...context, teamId: 'T1/../x' })).toMatchObject({ kind: 'ignore', malformed: true });
  });

  it('keeps the lines and indentation of a message (a plan and its YAML), running spaces together only within a line', () => {
    const text = '<@UBOT> plan in acme/app\n```\nname: notes\nunits:\n  - key: api\n    request: Add  the API\n```';
    const routed = routeSlackMessage({ type: 'app_mention', channel: 'C1', user: 'U1', text, ts: '10.1' }, context);
    expect(routed).toMatchObject({
      message: { text: 'plan in acme/app\n```\nname: notes\nunits:\n  - key: api\n    request: Add the API\n```' },
    });
  });
});
