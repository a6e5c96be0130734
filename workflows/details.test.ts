import { currentDetails, staticDetails } from './details';

describe('Web UI details', () => {
  it('write a unit started from a PR thread with its request first and links to the PR and the thread', () => {
    const text = staticDetails({
      kind: 'unit',
      request: 'Fix the\n\nparser',
      requester: { id: 'github:alice', displayName: 'alice' },
      agent: 'ship',
      repo: 'acme/app',
      pullRequest: 7,
      threadId: 'thread:gh:acme/app#7',
      namespace: 'default',
      githubWebUrl: 'https://github.com/',
    });
    expect(text).toBe(
      [
        '**Request:** Fix the parser',
        '',
        '- **Requester:** alice (`github:alice`)',
        '- **Agent:** ship',
        '- **Repository:** [acme/app](https://github.com/acme/app)',
        '- **Pull request:** [acme/app#7](https://github.com/acme/app/pull/7)',
        '- **Thread:** [thread:gh:acme/app#7](/namespaces/default/workflows/thread%3Agh%3Aacme%2Fapp%237)',
      ].join('\n'),
    );
  });

  it('cut a long request and write plain references without a GitHub web base', () => {
    const text = staticDetails({ kind: 'run', request: 'x'.repeat(5_000), repo: 'acme/app', pullRequest: 3 });
    expect(text.length).toBeLessThan(1_700);
    expect(text).toContain('- **Pull request:** acme/app#3');
  });

  it('say the phase, round, last verdict, checks and the next timer', () => {
    expect(
      currentDetails({
        phase: 'checks',
        round: { current: 1, of: 4 },
        lastVerdict: { verdict: 'approve', commitSha: '0123456789abcdef' },
        checks: 'waiting',
        nextTimer: { purpose: 'checks poll', at: '2026-12-02T00:00:00.000Z' },
      }),
    ).toBe(
      [
        '**Phase:** checks',
        '',
        '- **Round:** 1 of 4',
        '- **Last review:** approve on `0123456789ab`',
        '- **Checks:** waiting',
        '- **Next timer:** checks poll at 2026-12-02T00:00:00.000Z',
      ].join('\n'),
    );
  });

  it("link a thread's current run and the Web UI's list of its runs (by the Thread search attribute)", () => {
    const text = currentDetails({
      phase: 'running',
      runs: { namespace: 'default', threadId: 'thread:cli:t', current: 'run:thread:cli:t:2' },
    });
    expect(text).toContain(
      '- **Runs:** [run:thread:cli:t:2](/namespaces/default/workflows/run%3Athread%3Acli%3At%3A2) (running) · ' +
        "[this thread's runs](/namespaces/default/workflows?query=Thread%3D%22thread%3Acli%3At%22)",
    );
    expect(currentDetails({ phase: 'idle', runs: { namespace: 'default', threadId: 'thread:cli:t' } })).toContain(
      "- **Runs:** [this thread's runs](/namespaces/default/workflows?query=Thread%3D%22thread%3Acli%3At%22)",
    );
  });
});
