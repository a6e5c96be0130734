import { classifierCandidates, classifierPrompt, readClassifierAnswer, type RouteClassifier, route, routeWithClassifier } from './routing';
import { parseDirectives } from './directives';

const ALL = ['general', 'coding', 'review', 'ship', 'research', 'explore', 'conductor'];

function routed(message: string, stickyAgent?: string, available: string[] = ALL) {
  const { directives, text } = parseDirectives(message);
  return route({ directives, text, stickyAgent, available });
}

describe('route', () => {
  const table: Array<[string, string | undefined, string, string, string | undefined]> = [
    ['agent:explore time the build', undefined, 'explore', 'directive', 'explore'],
    ['agent:coding fix the login bug', undefined, 'coding', 'directive', 'coding'],
    ['agent:research what changed in node 22?', 'explore', 'research', 'directive', 'research'],
    ['and what about the tests?', 'explore', 'explore', 'sticky', 'explore'],
    ['fix the login bug', 'explore', 'explore', 'sticky', 'explore'],
    ['fix the null check in src/login.ts', undefined, 'ship', 'code-change', undefined],
    ['Please add a test for the parser', undefined, 'ship', 'code-change', undefined],
    ['can you bump the lodash dependency?', undefined, 'ship', 'code-change', undefined],
    ['in acme/api: rename getUser to fetchUser', undefined, 'ship', 'code-change', undefined],
    ['open a PR that removes the dead flag', undefined, 'ship', 'code-change', undefined],
    ['create an issue for the flaky login test', undefined, 'general', 'default', undefined],
    ['add the bug label to issue 12', undefined, 'general', 'default', undefined],
    ['how do I fix the build?', undefined, 'general', 'default', undefined],
    ['fix the build?', undefined, 'general', 'default', undefined],
    ['what does the retry policy do?', undefined, 'general', 'default', undefined],
    ['What is our p95 latency? Which service owns billing?', undefined, 'conductor', 'compound-read-only', undefined],
    [
      'Check these:\n1. who owns billing\n2. what the CI runtime is\n3. which repos use node 18',
      undefined,
      'conductor',
      'compound-read-only',
      undefined,
    ],
    ['- fix the login bug in auth.ts\n- fix the typo in README.md', undefined, 'general', 'default', undefined],
    ['fix the null check in src/login.ts', undefined, 'general', 'default', undefined],
  ];
  it.each(table.map((row, index) => [...row, index] as const))(
    '%j (sticky %s) -> %s by %s, sticky after %s',
    (message, sticky, agent, reason, stickyAfter, index) => {
      const available = index === table.length - 1 ? ALL.filter((id) => id !== 'ship') : ALL;
      const decision = routed(message, sticky, available);
      expect(decision.agent).toBe(agent);
      expect(decision.reason).toBe(reason);
      expect(decision.stickyAgent).toBe(stickyAfter);
    },
  );

  it('never picks coding without an explicit directive', () => {
    for (const message of ['fix it in code', 'implement the handler in api.ts', 'write code for the endpoint', 'make the change']) {
      expect(routed(message).agent).not.toBe('coding');
    }
  });
});

describe('the rules that find agents (routable agents only)', () => {
  const ROUTABLE = ['general', 'review', 'ship', 'research', 'explore', 'conductor'];
  const onPr = { kind: 'github' as const, pullRequest: true };
  function ruled(message: string, conversation?: { kind: 'github' | 'slack'; pullRequest?: boolean }, routable = ROUTABLE) {
    const { directives, text } = parseDirectives(message);
    return route({ directives, text, available: ALL, routable, ...(conversation ? { conversation } : {}) });
  }

  it.each([
    ['review this PR', onPr, 'review', 'review-request'],
    ['@switchboard please review the changes', onPr, 'review', 'review-request'],
    ['can you re-review?', onPr, 'review', 'review-request'],
    ['review this PR', { kind: 'slack' as const }, 'general', 'default'],
    ['review this PR', { kind: 'github' as const }, 'general', 'default'],
    ['fix the null check in src/login.ts', onPr, 'ship', 'code-change'],
    ['in acme/api: why is the build so slow?', undefined, 'explore', 'repo-question'],
    ['in acme/api: where is the retry policy in the code', undefined, 'explore', 'repo-question'],
    ['why is the build so slow?', undefined, 'general', 'default'],
    ['in acme/api: what are the open issues about login?', undefined, 'general', 'default'],
    ['research the tradeoffs of SQLite WAL mode', undefined, 'research', 'research-question'],
    ['what is the latest release of Temporal, with sources?', undefined, 'research', 'research-question'],
    ['look up the node 22 release notes', undefined, 'research', 'research-question'],
    ['what does the retry policy do?', undefined, 'general', 'default'],
  ])('%j (%j) -> %s by %s', (message, conversation, agent, reason) => {
    expect(ruled(message, conversation)).toMatchObject({ agent, reason });
  });

  it('says why on the card, in words', () => {
    expect(ruled('in acme/api: why is the build so slow?').note).toBe("a question about acme/api's code");
    expect(ruled('review this PR', onPr).note).toBe('a review request on a pull request');
  });

  it('never routes to an agent that is not routable, nor to coding, whatever the rule or the classifier says', () => {
    const withoutReview = ROUTABLE.filter((id) => id !== 'review');
    expect(ruled('review this PR', onPr, withoutReview)).toMatchObject({ agent: 'general', reason: 'default' });
    const { directives, text } = parseDirectives('something vague');
    for (const agent of ['coding', 'orchestrator', 'wizard']) {
      expect(
        route({
          directives,
          text,
          available: [...ALL, 'orchestrator'],
          routable: [...ROUTABLE, 'coding'],
          classified: { agent, why: 'x' },
        }),
      ).toMatchObject({
        agent: 'general',
        reason: 'default',
      });
    }
    expect(
      route({ directives, text, available: ALL, routable: ROUTABLE, classified: { agent: 'research', why: 'a web question' } }),
    ).toEqual({
      agent: 'research',
      reason: 'classifier',
      note: 'a web question',
    });
  });

  it('without the routable list (a replayed history), only the rules of before apply', () => {
    expect(routed('in acme/api: why is the build so slow?')).toMatchObject({ agent: 'general', reason: 'default' });
  });
});

describe('the classifier turn', () => {
  const candidates = classifierCandidates(
    [
      { id: 'general', description: 'answers questions', routable: true },
      { id: 'coding', description: 'changes code', routable: true },
      { id: 'orchestrator', description: 'units', routable: false },
      { id: 'research', description: 'the web, with sources', routable: true },
    ],
    ['general', 'coding', 'orchestrator', 'research'],
  );

  it('offers only routable, available agents, never coding, with the descriptions the catalog has', () => {
    expect(candidates.map((c) => c.id)).toEqual(['general', 'research']);
    const prompt = classifierPrompt({ text: 'what changed in TLS 1.3?', candidates });
    expect(prompt.system).toContain('- research: the web, with sources');
    expect(prompt.system).not.toContain('coding');
    expect(prompt.message).toBe('what changed in TLS 1.3?');
  });

  it.each([
    ['{"agent": "research", "why": "a question about a protocol"}', { agent: 'research', why: 'a question about a protocol' }],
    ['Sure! {"agent":"general"}', { agent: 'general', why: 'the classifier chose it' }],
    ['{"agent": "coding", "why": "x"}', undefined],
    ['{"agent": "research"', undefined],
    ['research', undefined],
  ])('reads %j as %j', (text, answer) => {
    expect(readClassifierAnswer(text, candidates)).toEqual(answer);
  });
});

describe('routeWithClassifier (the seam)', () => {
  const candidates = [
    { id: 'general', description: 'g' },
    { id: 'research', description: 'r' },
    { id: 'coding', description: 'c' },
  ];
  const answering = (agent: string | undefined): RouteClassifier & { calls: number } => ({
    calls: 0,
    classify(this: { calls: number }) {
      this.calls += 1;
      return Promise.resolve(agent ? { agent, why: 'because' } : undefined);
    },
  });

  it.each([
    ['research', 'research', 'classifier'],
    ['coding', 'general', 'default'],
    ['ship', 'general', 'default'],
    [undefined, 'general', 'default'],
  ] as const)('classifier says %s -> %s (%s)', async (answer, agent, reason) => {
    const decision = await routeWithClassifier(
      { directives: {}, text: 'what is new in TypeScript 5.9', available: ALL },
      candidates,
      answering(answer),
    );
    expect(decision).toMatchObject({ agent, reason });
  });

  it('is not consulted when a rule decided', async () => {
    const classifier = answering('research');
    const decision = await routeWithClassifier({ directives: {}, text: 'fix the bug in api.ts', available: ALL }, candidates, classifier);
    expect(decision.agent).toBe('ship');
    expect(classifier.calls).toBe(0);
  });
});
