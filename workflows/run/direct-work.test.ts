import { DEFAULT_SHIP_SETTINGS } from '../../activities/agents/agent-setup';
import type { PullDetail } from '../contracts/github';
import type { ToolCall } from '../contracts/model';
import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { ReplyTarget, RunInput } from '../contracts';
import { CallLog } from '../test-support';
import { DirectWork, directBranchName, directMode, pullRequestNamed, type DirectActivities } from './direct-work';
import { RunState } from './run-state';

const RUN = 'run:thread:cli:abc:1';

function world(
  agent: 'review' | 'coding',
  options: { request?: string; repo?: string; replyTarget?: ReplyTarget; pulls?: Array<Partial<PullDetail>> } = {},
) {
  const log = new CallLog();
  const profile = resolveProfile({
    agent: getAgent(builtinCatalog(), agent)!,
    config: defaultAgentsConfig({}),
    directives: options.repo === undefined ? { repo: 'acme/app' } : options.repo ? { repo: options.repo } : {},
  });
  const input: RunInput = {
    threadId: 'thread:cli:abc',
    profile,
    system: 's',
    request: options.request ?? 'review #7',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: options.replyTarget ?? { kind: 'cli' },
  };
  const state = new RunState(input, 0);
  const pulls = [...(options.pulls ?? [{}])];
  const pull = (): PullDetail => ({
    number: 7,
    title: 't',
    body: 'b',
    state: 'open',
    merged: false,
    draft: false,
    headRef: 'feature',
    headSha: 'head-1',
    headRepo: 'acme/app',
    baseRef: 'main',
    url: 'u',
    files: [],
    ...(pulls.length > 1 ? pulls.shift() : pulls[0]),
  });
  const activities = {
    setup: { loadAgentSetup: log.fn('loadAgentSetup', () => ({ ship: DEFAULT_SHIP_SETTINGS })) },
    github: {
      githubPullGet: log.fn('githubPullGet', pull),
      pushBranch: log.fn('pushBranch', (i: { effectKey: string }) => ({ status: 'confirmed', effectKey: i.effectKey })),
    },
    workspace: {
      prepareUnitWorkspace: log.fn('prepareUnitWorkspace', () => ({ path: '/ws', headSha: 'start-1', base: 'main' })),
      commitWorkspace: log.fn('commitWorkspace', () => ({ headSha: 'commit-1', changed: true })),
    },
    githubWrites: {
      postReview: log.fn('postReview', (i: { effectKey: string }) => ({ status: 'confirmed', effectKey: i.effectKey, url: 'https://r' })),
      openOrUpdatePullRequest: log.fn('openOrUpdatePullRequest', (i: { effectKey: string }) => ({
        status: 'confirmed',
        effectKey: i.effectKey,
        number: 8,
        url: 'https://pr/8',
      })),
    },
  } as unknown as DirectActivities;
  const work = new DirectWork({ runId: RUN, state, workspaceKey: 'thread:cli:abc', mode: directMode(input)!, activities });
  return { work, state, log, input };
}

const call = (name: string): ToolCall => ({ id: 'c1', name, input: {} });
const review = { verdict: 'approve' as const, summary: 'Fine.', findings: [] };

describe('directMode and names', () => {
  it('is direct only outside a unit and outside a task child', () => {
    const { input } = world('review');
    expect(directMode(input)).toBe('review');
    expect(directMode({ ...input, submitsTo: 'unit' })).toBeUndefined();
    expect(directMode({ ...input, parent: { workflowId: 'p', depth: 1 } })).toBeUndefined();
    expect(directMode(world('coding').input)).toBe('coding');
  });

  it('leaves a coding run with no repository a scratch run (nothing to push)', () => {
    const { input } = world('coding', { repo: '' });
    expect(directMode(input)).toBeUndefined();
  });

  it('reads the PR from the request and makes a branch name git accepts', () => {
    expect(pullRequestNamed('review #12 please', 'acme/app')).toBe(12);
    expect(pullRequestNamed('look at acme/app#3', 'acme/app')).toBe(3);
    expect(pullRequestNamed('review the thing', 'acme/app')).toBeUndefined();
    expect(directBranchName('run:thread:slack:T1:C2:171.5:3')).toBe('switchboard/slack-T1-C2-171.5-3');
  });
});

describe('a direct review', () => {
  it('checks out the PR head and tells the model which commit it holds', async () => {
    const w = world('review');
    expect(await w.work.prepare()).toBeUndefined();
    expect(w.log.inputs('prepareUnitWorkspace')[0]).toMatchObject({
      checkoutSha: 'head-1',
      identity: 'read',
      workspaceKey: 'thread:cli:abc',
    });
    expect(w.state.messages[0]).toMatchObject({ role: 'user', text: expect.stringContaining('commit head-1') });
  });

  it('names what is missing: a repository, a pull request', async () => {
    expect(await world('review', { repo: '' }).work.prepare()).toMatch(/needs a repository/);
    expect(await world('review', { request: 'review it' }).work.prepare()).toMatch(/needs a pull request/);
  });

  it('posts once on the reviewed commit, and refuses a second submission', async () => {
    const w = world('review');
    await w.work.prepare();
    const first = await w.work.submitReview(call('submit_review'), review);
    expect(first.isError).toBeUndefined();
    expect(w.log.inputs('postReview')[0]).toMatchObject({ commitSha: 'head-1', effectKey: `${RUN}/review/head-1`, number: 7 });
    expect((await w.work.submitReview(call('submit_review'), review)).isError).toBe(true);
    expect(w.log.inputs('postReview')).toHaveLength(1);
    expect(w.work.answer('Done.')).toBe('Done.\n\nDelivered approving review of #7 on commit head-1: https://r');
  });

  it('posts nothing when the head moved during the review, and says so', async () => {
    const w = world('review', { pulls: [{ headSha: 'head-1' }, { headSha: 'head-2' }] });
    await w.work.prepare();
    const result = await w.work.submitReview(call('submit_review'), review);
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('moved from head-1 to head-2') });
    expect(w.log.names()).not.toContain('postReview');
  });
});

describe('a direct coding run', () => {
  it('pushes a new branch and opens a draft PR', async () => {
    const w = world('coding', { request: 'add a changelog' });
    await w.work.prepare();
    expect(w.log.inputs('prepareUnitWorkspace')[0]).toMatchObject({ branch: 'switchboard/cli-abc-1', identity: 'write' });
    await w.work.submitDescription(call('submit_description'), { title: 'T', body: 'B' });
    expect(w.log.inputs('pushBranch')[0]).toMatchObject({ branch: 'switchboard/cli-abc-1', expectedRemoteSha: '' });
    expect(w.log.inputs('openOrUpdatePullRequest')[0]).toMatchObject({
      draft: true,
      head: 'switchboard/cli-abc-1',
      effectKey: `${RUN}/pr`,
    });
    expect(w.work.answer('')).toBe('Delivered draft pull request #8 from switchboard/cli-abc-1: https://pr/8');
  });

  it("pushes to the asked-from PR's branch when it is in the repository, and to a new branch when it is a fork's", async () => {
    const onPr: ReplyTarget = { kind: 'github', repo: 'acme/app', pullRequest: 7 };
    const same = world('coding', { replyTarget: onPr, request: 'fix it' });
    await same.work.prepare();
    await same.work.submitDescription(call('submit_description'), { title: 'T', body: 'B' });
    expect(same.log.inputs('pushBranch')[0]).toMatchObject({ branch: 'feature', expectedRemoteSha: 'start-1' });
    expect(same.log.names()).not.toContain('openOrUpdatePullRequest');
    const fork = world('coding', { replyTarget: onPr, request: 'fix it', pulls: [{ headRepo: 'someone/app' }] });
    await fork.work.prepare();
    expect(fork.log.inputs('prepareUnitWorkspace')[0]).toMatchObject({ branch: 'switchboard/cli-abc-1' });
    expect(fork.state.messages[0]).toMatchObject({ text: expect.stringContaining('in someone/app, not acme/app') });
  });
});
