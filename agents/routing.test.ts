import { type RouteClassifier, route, routeWithClassifier } from './routing';
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

describe('routeWithClassifier (the seam)', () => {
  const candidates = [
    { id: 'general', description: 'g' },
    { id: 'research', description: 'r' },
    { id: 'coding', description: 'c' },
  ];
  const answering = (answer: string | undefined): RouteClassifier & { calls: number } => ({
    calls: 0,
    classify(this: { calls: number }) {
      this.calls += 1;
      return Promise.resolve(answer);
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
