import type { ReplyTarget } from '../contracts';
import { THREAD_SLASH_COMMANDS } from './board-command';
import { THREAD_SEEDS_ISSUES } from './issue-seed';
import { GITHUB_ACTOR_ADMITTED, MessageDecider, PATCH_LOCAL_SETUP, ROUTING_FINDS_AGENTS } from './message-decider';
import { THREAD_STARTS_PLANS } from './plan-ask';
import { THREAD_REPO_SETTINGS } from './repo-settings';
import { agentSetup, message, SLACK, THREAD, threadWorld } from './thread-test-world';
import { VET_REPOSITORY_PATCH } from './vet';

const issue: ReplyTarget = { kind: 'github', repo: 'acme/app', pullRequest: 12, issue: true };
const decider = (world: ReturnType<typeof threadWorld>) => new MessageDecider(world.memory, world.effects);

describe('MessageDecider', () => {
  it('decides a plain message from the setup it loads, reserves the next run, and makes the agent sticky', async () => {
    const world = threadWorld();
    const decided = await decider(world).decide(message('agent:explore why is CI slow?'), SLACK);
    expect(decided).toMatchObject({ decision: { kind: 'run', agent: 'explore' }, repo: undefined, replyTarget: SLACK });
    expect(world.patches).toEqual([PATCH_LOCAL_SETUP, ROUTING_FINDS_AGENTS]);
    expect(world.log.calls).toEqual([
      { name: 'loadSetup', input: true },
      { name: 'spend', input: { runId: `run:${THREAD}:1`, threadId: THREAD } },
    ]);
    expect(world.memory.facts).toBe(decided!.setup);
    expect(world.memory.stickyAgent).toBe('explore');
  });

  it("reads an issue's unit from the issue, then the setup and the repository's settings, in the thread's order", async () => {
    const world = threadWorld({ issue: { number: 12, title: 'Crash on start', body: 'It crashes.', comments: [], omitted: 0 } });
    const seeded = message('', { requester: { id: 'github:ada', surface: 'github' }, seed: { issue: 12, trigger: 'assigned' } });
    const decided = await decider(world).decide(seeded, issue);
    expect(decided!.message.text).toBe('agent:ship Issue #12: Crash on start\n\nIt crashes.');
    expect(decided!.repo).toBe('acme/app');
    expect(world.patches).toEqual([
      THREAD_SEEDS_ISSUES,
      PATCH_LOCAL_SETUP,
      THREAD_REPO_SETTINGS,
      GITHUB_ACTOR_ADMITTED,
      ROUTING_FINDS_AGENTS,
    ]);
    expect(world.log.names()).toEqual(['githubIssueThread', 'loadSetup', 'repoSettings', 'spend']);
    expect(world.log.inputs('githubIssueThread')).toEqual([{ repo: 'acme/app', number: 12 }]);
  });

  it("says a broken settings file's problems once per version, and decides with what the file allows", async () => {
    const settings = {
      repo: 'acme/app',
      file: 'found' as const,
      fileSha: 'blob1',
      settings: {
        review: { triggers: [], debounceSeconds: 60, severity: 'minor' as const },
        issues: { assign: false },
        agents: { allowed: ['explore'], rule: 'file' },
      },
      problems: [{ key: 'review.triggers', message: 'must be a list' }],
    };
    const world = threadWorld({ settings });
    const decided = await decider(world).decide(message('in acme/app: why is CI slow?'), SLACK);
    expect(world.log.inputs('notice')).toEqual([
      { effectKey: 'settings:acme/app@blob1', text: expect.stringContaining('`review.triggers`: must be a list'), replyTarget: SLACK },
    ]);
    // Said once per key whoever says it: not listed among the thread's unconfirmed replies.
    expect(world.log.inputs('deliverReply')).toEqual([]);
    expect(decided!.setup.repositories?.['acme/app']).toEqual({ allowed: ['explore'], rule: 'file' });
    expect(world.memory.facts).toBe(decided!.setup);
  });

  it('decided without the settings, the classifier or the slash commands in threads recorded before them', async () => {
    const setup = agentSetup({ routing: { classifier: { enabled: true } } });
    const world = threadWorld({ setup, off: [THREAD_REPO_SETTINGS, ROUTING_FINDS_AGENTS, THREAD_SLASH_COMMANDS, PATCH_LOCAL_SETUP] });
    await decider(world).decide(message('/research in acme/app: TLS 1.3'), SLACK);
    expect(world.log.calls[0]).toEqual({ name: 'loadSetup', input: false });
    expect(world.log.names()).not.toContain('repoSettings');
    expect(world.log.names()).not.toContain('classify');
  });

  it('asks the classifier about a message no rule placed, and counts its turn in the run it starts', async () => {
    const setup = agentSetup({ routing: { classifier: { enabled: true } } });
    const world = threadWorld({ setup });
    const usage = { turn: 0, model: 'm', input: 10, output: 2, cacheRead: 0, cacheWrite: 0, purpose: 'routing' as const };
    world.effects.classify = async (...args) => {
      world.log.calls.push({ name: 'classify', input: args[2] });
      return { answer: { agent: 'general', why: 'the classifier chose it' }, usage };
    };
    const decided = await decider(world).decide(message('hello there'), SLACK);
    expect(world.log.inputs('classify')).toEqual([THREAD]);
    expect(decided!.decision).toMatchObject({ kind: 'run', agent: 'general', routing: { agent: 'general', usage } });
  });

  it("vets a repository run's owner/name before it starts, and refuses one its identity cannot see, keeping the agent chosen", async () => {
    const world = threadWorld({ vet: { ok: false, repo: 'acme/app', code: 'repo_not_visible', reason: 'not found' } });
    const decided = await decider(world).decide(message('agent:explore in acme/app: why is CI slow?'), SLACK);
    expect(world.patches).toContain(VET_REPOSITORY_PATCH);
    expect(world.log.inputs('vetRepository')).toEqual([{ repo: 'acme/app', identity: 'read' }]);
    expect(decided!.decision).toMatchObject({ kind: 'refused', code: 'repo_not_visible', stickyAgent: 'explore' });
    expect(world.memory.stickyAgent).toBe('explore');
  });

  it("takes the spend caps' refusal as the decision", async () => {
    const world = threadWorld({ spend: () => ({ decision: { kind: 'refused', code: 'spend_cap', reply: 'Not started: the cap.' } }) });
    world.memory.stickyAgent = 'explore';
    const decided = await decider(world).decide(message('why is CI slow?'), SLACK);
    expect(decided!.decision).toEqual({ kind: 'refused', code: 'spend_cap', reply: 'Not started: the cap.' });
    expect(world.memory.stickyAgent).toBeUndefined();
  });

  it("keeps the conversation's agent for an automatic review (the repository's choice, not the person's)", async () => {
    const world = threadWorld();
    world.memory.stickyAgent = 'explore';
    const review = message('', { review: { trigger: 'opened', headSha: 'abcdef0123456789' } });
    const decided = await decider(world).decide(review, { kind: 'github', repo: 'acme/app', pullRequest: 7 });
    expect(decided!.message.text).toBe('agent:review Review this pull request: it was opened (head abcdef012345).');
    expect(decided!.decision).toMatchObject({ kind: 'run', agent: 'review' });
    expect(world.memory.stickyAgent).toBe('explore');
  });

  it('starts a plan asked for in the conversation, answered there and remembered, and confirms a drafted one once', async () => {
    const draft = { plan: { name: 'p', repo: 'acme/app', units: [] }, requester: 'ada', runId: `run:${THREAD}:1` };
    const world = threadWorld({ carry: { runCount: 1, saved: [], queue: [], seen: [], outcomes: [], planDraft: draft } });
    world.memory.deciding = 'm1';
    await expect(decider(world).decide(message('plan confirm'), SLACK)).resolves.toBeUndefined();
    expect(world.patches).toEqual([PATCH_LOCAL_SETUP, THREAD_STARTS_PLANS]);
    expect(world.log.names()).toEqual(['loadSetup', 'plan']);
    expect(world.memory.outcomeOf('m1')).toEqual({
      messageId: 'm1',
      kind: 'plan',
      planId: 'plan:acme/app:p',
      agent: 'ship',
      reply: 'Started plan.',
    });
    expect(world.memory.deciding).toBeUndefined();
    expect(world.memory.planDraft).toBeUndefined();
  });

  it("tells the person when the plan's service did not answer, and goes on", async () => {
    const world = threadWorld();
    world.effects.plan = () => Promise.reject(new Error('the plans are away'));
    await decider(world).decide(message('plan confirm'), SLACK);
    expect(world.memory.outcomeOf('m1')).toMatchObject({ kind: 'refused', code: 'service_unavailable' });
    expect(world.log.inputs('deliverReply')).toEqual([
      expect.objectContaining({
        effectKey: `${THREAD}/reply/m1`,
        text: expect.stringContaining('The plan did not work just now (the plans are away)'),
      }),
    ]);
  });
});
