import { boardPolicy, repoBoardId } from '../../agents';
import type { ThreadMessage } from '../contracts';
import { message, SLACK, THREAD, threadWorld } from './thread-test-world';
import { ThreadTurn } from './thread-turn';

const pr = { kind: 'github' as const, repo: 'acme/app', pullRequest: 7 };

describe('ThreadTurn', () => {
  it('refuses a malformed message queued before messages were checked whole, without a decision', async () => {
    const world = threadWorld();
    const malformed = { messageId: 'm9', text: 42 } as unknown as ThreadMessage;
    await expect(new ThreadTurn(world).take(malformed)).resolves.toBe(false);
    expect(world.memory.outcomeOf('m9')).toMatchObject({
      kind: 'refused',
      code: 'message_invalid',
      reply: expect.stringMatching(/^Not taken: /),
    });
    expect(world.log.calls).toEqual([]);
  });

  it('skips an automatic review of a commit the conversation already reviewed', async () => {
    const world = threadWorld({ carry: { runCount: 1, saved: [], queue: [], seen: [], outcomes: [], reviews: { reviewed: ['abc'] } } });
    const review = message('', { replyTarget: pr, review: { trigger: 'push', headSha: 'abc' } });
    await expect(new ThreadTurn(world).take(review)).resolves.toBe(false);
    expect(world.memory.outcomeOf('m1')).toEqual({ messageId: 'm1', kind: 'duplicate' });
    expect(world.log.calls).toEqual([]);
  });

  it('answers a refusal in words, where the message asked', async () => {
    const world = threadWorld({ spend: () => ({ decision: { kind: 'refused', code: 'spend_cap', reply: 'Not started: the cap.' } }) });
    await expect(new ThreadTurn(world).take(message('why?'))).resolves.toBe(true);
    expect(world.memory.outcomeOf('m1')).toEqual({ messageId: 'm1', kind: 'refused', reply: 'Not started: the cap.', code: 'spend_cap' });
    expect(world.log.inputs('deliverReply')).toEqual([
      { effectKey: `${THREAD}/reply/m1`, replyTarget: SLACK, text: 'Not started: the cap.', acknowledge: 'refused' },
    ]);
  });

  it('records, without a word, the refusal of an automatic review nobody asked for in words', async () => {
    const world = threadWorld({ spend: () => ({ decision: { kind: 'refused', code: 'spend_cap', reply: 'Not started.' } }) });
    const review = message('', { replyTarget: pr, review: { trigger: 'opened', headSha: 'def' } });
    await new ThreadTurn(world).take(review);
    expect(world.memory.outcomeOf('m1')).toMatchObject({ kind: 'refused', code: 'spend_cap' });
    expect(world.log.names()).not.toContain('deliverReply');
  });

  it('starts a ship unit for a code change and says so', async () => {
    const world = threadWorld();
    await new ThreadTurn(world).take(message('agent:ship in acme/app: add a changelog'));
    expect(world.log.names()).toEqual(['loadSetup', 'repoSettings', 'spend', 'startShipUnit', 'deliverReply']);
    expect(world.memory.outcomeOf('m1')).toEqual({
      messageId: 'm1',
      agent: 'ship',
      kind: 'unit',
      unitId: 'unit:acme/app#7',
      reply: 'Started ship unit.',
    });
    expect(world.log.inputs('deliverReply')).toEqual([
      { effectKey: `${THREAD}/reply/m1`, replyTarget: SLACK, text: 'Started ship unit.', acknowledge: 'accepted' },
    ]);
  });

  it("answers a board command itself, and says so when the board's service does not answer", async () => {
    const board = boardPolicy(repoBoardId('acme/app'), { enabled: true });
    const review = { triggers: [], debounceSeconds: 60, severity: 'minor' as const };
    const settings = { repo: 'acme/app', file: 'found' as const, settings: { review, issues: { assign: false }, board }, problems: [] };
    const world = threadWorld({ boardFails: 'the board is away', settings });
    await new ThreadTurn(world).take(message('in acme/app: /board'));
    expect(world.log.names()).toEqual(['loadSetup', 'repoSettings', 'spend', 'readBoard', 'deliverReply']);
    expect(world.memory.outcomeOf('m1')).toMatchObject({ kind: 'refused', code: 'service_unavailable' });
    expect(world.log.inputs('deliverReply')).toEqual([
      expect.objectContaining({
        text: expect.stringContaining('The board did not work just now (the board is away)'),
        acknowledge: 'refused',
      }),
    ]);
  });

  it('starts a run for a run decision and answers with its end', async () => {
    const world = threadWorld();
    await expect(new ThreadTurn(world).take(message('agent:explore why is CI slow?'))).resolves.toBe(true);
    expect(world.log.names()).toEqual(['loadSetup', 'spend', 'startRun', 'ended', 'deliverReply']);
    expect(world.memory.outcomeOf('m1')).toEqual({ messageId: 'm1', kind: 'run', runId: `run:${THREAD}:1`, agent: 'explore' });
  });
});
