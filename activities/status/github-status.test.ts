import { MockActivityEnvironment } from '@temporalio/testing';
import { createGitHubActivities } from '../github';
import { localGitHubWithIdentities, READ_TOKEN, WRITE_TOKEN } from '../github/test-support';
import { createGitHubIdentities } from '../github/identity';
import { type LocalGitHub } from '../../emulators/local-github';
import { createLogger } from '../../infra/logger';
import type { RunStatus } from '../../workflows/contracts';
import { createGitHubStatusActivities } from './github-status';

const status: RunStatus = {
  runId: 'run:thread:gh:acme/app#1:1',
  agent: 'general',
  model: 'scripted:x',
  phase: 'thinking',
  turns: 1,
  turnGuard: 10,
  tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
  cost: { usd: 0, searches: 0, searchUsd: 0, unpriced: [] },
  elapsedMs: 1500,
  budget: { minutes: 5, boundedBy: 'preset', description: '5 min' },
  statusText: 'Reading the code',
};

describe('GitHub status delivery', () => {
  let github: LocalGitHub;
  let delivery: ReturnType<typeof createGitHubStatusActivities>;
  let commentId: number;
  const logger = createLogger({ level: 'silent' });

  beforeAll(async () => {
    const local = await localGitHubWithIdentities();
    github = local.github;
    github.createRepo('acme', 'app', { 'README.md': '# app\n' });
    const writes = createGitHubActivities({ identities: local.identities });
    await writes.createIssue({ repo: 'acme/app', effectKey: 'setup/1', title: 'Help', body: 'Please.' });
    const asked = await writes.postComment({ repo: 'acme/app', number: 1, body: '@switchboard what is this?', effectKey: 'setup/2' });
    commentId = asked.id!;
    delivery = createGitHubStatusActivities({
      identities: local.identities,
      logger,
      namespace: 'default',
      webUiBaseUrl: 'http://ui',
      sessionLink: (runId) => `http://sb/session/${encodeURIComponent(runId)}?k=signed`,
    });
  });
  afterAll(() => github.close());

  const comments = () => github.state.repo('acme', 'app')!.issues.get(1)!.comments;
  const target = () => ({ kind: 'github' as const, repo: 'acme/app', pullRequest: 1, commentId });

  it('posts one status comment, edits it in place, reacts once, and posts the answer once', async () => {
    const card = { runId: status.runId, effectKey: `${status.runId}/card/0`, replyTarget: target(), status, final: false };
    expect(await delivery.statusCard(card)).toEqual({ status: 'confirmed' });
    expect(await delivery.statusCard({ ...card, status: { ...status, statusText: 'Writing' } })).toEqual({ status: 'confirmed' });
    expect(await delivery.statusCard({ ...card, final: true, status: { ...status, phase: 'finished', outcome: 'completed' } })).toEqual({
      status: 'confirmed',
    });
    const cards = comments().filter((c) => c.body.includes('card/0'));
    expect(cards).toHaveLength(1);
    expect(cards[0].body).toMatch(
      /✅ Completed[\s\S]*The answer follows below[\s\S]*\[Open session\]\(http:\/\/sb\/session\/[^)]*\?k=signed\) · \[Open in Temporal\]\(http:\/\/ui\/namespaces\/default/,
    );
    expect(github.state.countWrites('comment.update', 'acme/app')).toBe(2);
    expect(comments()[0].reactions).toEqual([expect.objectContaining({ content: 'eyes' })]);

    const reply = { effectKey: `${status.runId}/answer`, replyTarget: target(), text: 'It is an app.' };
    expect(await delivery.deliverReply(reply)).toEqual({ status: 'confirmed' });
    expect(await delivery.deliverReply(reply)).toEqual({ status: 'confirmed' });
    expect(comments().filter((c) => c.body.startsWith('It is an app.'))).toHaveLength(1);
  });

  it('a fresh worker finds the card by its marker instead of posting another', async () => {
    const identities = createGitHubIdentities({
      apiUrl: github.apiUrl,
      gitUrl: github.gitUrl,
      tokens: { read: READ_TOKEN, write: WRITE_TOKEN },
    });
    const other = createGitHubStatusActivities({ identities, logger, namespace: 'default' });
    const card = { runId: status.runId, effectKey: `${status.runId}/card/0`, replyTarget: target(), status, final: false };
    expect(await other.statusCard(card)).toEqual({ status: 'confirmed' });
    expect(comments().filter((c) => c.body.includes('card/0'))).toHaveLength(1);
  });

  it('a card whose first post was never confirmed: posted afresh under the next key, and the first edited once it turns up', async () => {
    const runId = 'run:thread:gh:acme/app#1:2';
    const first = { runId, effectKey: `${runId}/card/0`, replyTarget: target(), status, final: false };
    const env = new MockActivityEnvironment({ attempt: 2 });
    expect(await env.run(() => delivery.statusCard(first))).toMatchObject({ status: 'unconfirmed' });
    const next = { ...first, effectKey: `${runId}/card/1`, earlierKeys: [`${runId}/card/0`] };
    expect(await delivery.statusCard(next)).toEqual({ status: 'confirmed' });
    const cards = () => comments().filter((c) => c.body.includes(`${runId}/card/`));
    expect(cards().map((c) => /card\/(\d)/.exec(c.body)?.[1])).toEqual(['1']);
    // The first post turns up after all (another worker's late request): the next update edits both, posts none.
    const writes = createGitHubActivities({
      identities: createGitHubIdentities({
        apiUrl: github.apiUrl,
        gitUrl: github.gitUrl,
        tokens: { read: READ_TOKEN, write: WRITE_TOKEN },
      }),
    });
    await writes.postComment({ repo: 'acme/app', number: 1, body: 'late card', effectKey: `${runId}/card/0` });
    const final = { ...next, final: true, status: { ...status, phase: 'finished' as const, outcome: 'completed' as const } };
    expect(await delivery.statusCard(final)).toEqual({ status: 'confirmed' });
    expect(cards()).toHaveLength(2);
    for (const card of cards()) expect(card.body).toContain('Completed');
  });

  it('a retry that finds no trace is unconfirmed and never posts', async () => {
    const env = new MockActivityEnvironment({ attempt: 2 });
    const reply = { effectKey: 'lost/answer', replyTarget: target(), text: 'Lost.' };
    expect(await env.run(() => delivery.deliverReply(reply))).toMatchObject({ status: 'unconfirmed' });
    expect(await delivery.deliverReply(reply)).toMatchObject({ status: 'unconfirmed' });
    expect(comments().some((c) => c.body.startsWith('Lost.'))).toBe(false);
  });

  it('a refusal reacts 👎 on the asking comment; without a write identity the answer is only logged', async () => {
    const reply = { effectKey: 'refusal', replyTarget: target(), text: 'Not for you.', acknowledge: 'refused' as const };
    expect(await delivery.deliverReply(reply)).toEqual({ status: 'confirmed' });
    expect(comments()[0].reactions?.map((r) => r.content)).toEqual(['eyes', '-1']);
    const readOnly = createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { read: 'x' } });
    const logged = createGitHubStatusActivities({ identities: readOnly, logger, namespace: 'default' });
    expect(await logged.deliverReply({ ...reply, effectKey: 'nowhere' })).toMatchObject({
      status: 'logged',
      reason: expect.stringMatching(/GITHUB_WRITE_TOKEN/),
    });
  });
});
