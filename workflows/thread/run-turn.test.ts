import { EAGER_RUN_START } from './run-start';
import { ThreadTurn } from './thread-turn';
import { message, runRecord, SLACK, THREAD, threadWorld, unconfirmedReply } from './thread-test-world';

const RUN = `run:${THREAD}:1`;
const pr = { kind: 'github' as const, repo: 'acme/app', pullRequest: 7 };

describe('RunTurn', () => {
  it('starts the run with the conversation so far, where its workspace is, and tells who follows it once it exists', async () => {
    const world = threadWorld();
    world.memory.workspaceHost = 'host-a';
    world.memory.save({ request: 'earlier', answer: 'yes', agent: 'explore', outcome: 'completed' });
    let outcomeWhileRunning: unknown;
    const start = world.effects.startRun;
    world.effects.startRun = async (launch, options) => {
      const started = await start(launch, options);
      return { ...started, ended: () => ((outcomeWhileRunning = world.memory.outcomeOf('m1')), started.ended()) };
    };
    await new ThreadTurn(world).take(message('agent:explore in acme/app: why is CI slow?'));
    const [{ launch, eager, currentRunId }] = world.launches;
    expect(eager).toBe(true);
    expect(world.patches).toContain(EAGER_RUN_START);
    // The run is the current one (and shown so) before it starts.
    expect(currentRunId).toBe(RUN);
    expect(world.shown).toBe(1);
    expect(launch).toMatchObject({ runId: RUN, staticSummary: 'explore: why is CI slow?' });
    expect(launch.staticDetails).toContain('- **Repository:** acme/app');
    expect(Object.keys(launch.input)).toEqual([
      'request',
      'requester',
      'threadId',
      'replyTarget',
      'profile',
      'system',
      'context',
      'workspaceHost',
    ]);
    expect(launch.input).toMatchObject({ request: 'why is CI slow?', threadId: THREAD, replyTarget: SLACK, workspaceHost: 'host-a' });
    expect(launch.input.context).toEqual([
      { role: 'user', text: 'earlier' },
      { role: 'assistant', text: '(explore, completed) yes', toolCalls: [] },
    ]);
    expect(outcomeWhileRunning).toEqual({ messageId: 'm1', kind: 'run', runId: RUN, agent: 'explore' });
  });

  it('settles the run: the money released, its host, its unconfirmed writes and the exchange kept, its answer given', async () => {
    const record = runRecord({
      runId: RUN,
      workspaceHost: 'host-b',
      finalText: 'CI is slow because…',
      unconfirmed: [unconfirmedReply(`${RUN}/card`)],
    });
    const world = threadWorld({
      ended: { record: { ...record, cost: { usd: 0.25 } } as typeof record },
      spend: (spend) => ({ ...spend, holder: RUN }),
    });
    await new ThreadTurn(world).take(message('agent:explore why is CI slow?'));
    expect(world.log.inputs('releaseSpend')).toEqual([{ holder: RUN, spentUsd: 0.25, by: THREAD }]);
    expect(world.memory).toMatchObject({
      currentRunId: undefined,
      currentRun: undefined,
      pendingStop: undefined,
      workspaceHost: 'host-b',
      runCount: 1,
    });
    expect(world.memory.uncertain.map((write) => write.effectKey)).toEqual([`${RUN}/card`]);
    expect(world.memory.saved).toEqual([
      { request: 'why is CI slow?', answer: 'CI is slow because…', agent: 'explore', outcome: 'completed' },
    ]);
    expect(world.log.inputs('deliverReply')).toEqual([{ effectKey: `${RUN}/answer`, replyTarget: SLACK, text: 'CI is slow because…' }]);
  });

  it('passes on a stop that came while the run was starting', async () => {
    const world = threadWorld();
    world.effects.startRun = async (launch) => {
      world.memory.pendingStop = { by: 'ada', reason: 'wrong repo' };
      return {
        stop: async (stop) => void world.log.calls.push({ name: 'stopRun', input: stop }),
        ended: async () => ({ record: runRecord({ runId: launch.runId, outcome: 'stopped', finalText: '' }) }),
      };
    };
    await new ThreadTurn(world).take(message('agent:explore why is CI slow?'));
    expect(world.log.inputs('stopRun')).toEqual([{ by: 'ada', reason: 'wrong repo' }]);
    expect(world.memory.pendingStop).toBeUndefined();
    expect(world.memory.saved[0].outcome).toBe('stopped');
  });

  it('started its run as a child in threads recorded before eager starts, and answers a run that failed without a record', async () => {
    const world = threadWorld({ off: [EAGER_RUN_START], ended: { failed: 'the workflow raised' } });
    await new ThreadTurn(world).take(message('agent:explore why is CI slow?'));
    expect(world.launches[0].eager).toBe(false);
    expect(world.memory.saved[0]).toMatchObject({ outcome: 'failed' });
    expect(world.log.inputs('deliverReply')).toHaveLength(1);
  });

  it('gives a review run on the pull request its key, and says nothing more once it posted its review', async () => {
    const reviewed = { status: 'confirmed' as const, commitSha: 'abc' };
    const world = threadWorld({ ended: { record: runRecord({ runId: RUN, reviewed }) } });
    const review = message('', { replyTarget: pr, review: { trigger: 'opened', headSha: 'abc' } });
    await new ThreadTurn(world).take(review);
    expect(world.launches[0].launch.input).toMatchObject({ reviewKey: THREAD, automaticReview: true, replyTarget: pr });
    expect(world.launches[0].launch.staticDetails).toContain('- **Pull request:** acme/app#7');
    expect(world.memory.reviews.reviewed('abc')).toBe(true);
    expect(world.log.names()).not.toContain('deliverReply');
  });
});
