import type { RunStatus } from '../../workflows/contracts';
import { renderGitHubCard } from '../status/github-card';
import { renderCard } from './card-blocks';

const status: RunStatus = {
  runId: 'run:t:1',
  agent: 'explore',
  model: 'anthropic:claude-sonnet-4-6',
  phase: 'finished',
  turns: 12,
  turnGuard: 720,
  tokens: { input: 4_000, output: 900, cacheRead: 90_000, cacheWrite: 6_000 },
  cost: { usd: 0.0612, searches: 0, searchUsd: 0, unpriced: [], withoutCacheUsd: 0.31 },
  elapsedMs: 95_000,
  budget: { minutes: 120, boundedBy: 'agent', description: '120 min (agent)' },
  outcome: 'spend',
  endedBy: 'the $0.0500 per-run cap of person ada',
  cacheShare: 0.9,
  spendCap: { usd: 0.05, boundedBy: 'the $0.0500 per-run cap of person ada' },
};

const textOf = (blocks: unknown[]) => JSON.stringify(blocks);

describe('status cards', () => {
  it("show the run's checklist on the Slack and the GitHub card, each step's state, while it works and at the end (issue 33)", () => {
    const working: RunStatus = {
      ...status,
      phase: 'tools',
      outcome: undefined,
      statusText: 'Fixing the total',
      steps: [
        { title: 'Reproduce the failure', state: 'done' },
        { title: 'Fix total()', state: 'running' },
        { title: 'Run the tests', state: 'pending' },
        { title: 'Benchmark', state: 'skipped' },
        { title: 'Lint <all>', state: 'failed' },
      ],
    };
    const slack = textOf(renderCard({ status: working, final: false }).blocks);
    expect(slack).toContain(
      '*Steps* (1 of 5 steps done)\\n:white_check_mark: Reproduce the failure\\n:arrow_forward: Fix total()\\n:white_circle: Run the tests\\n:fast_forward: Benchmark\\n:x: Lint &lt;all&gt;',
    );
    expect(renderGitHubCard({ status: working, final: false })).toContain(
      '**Steps** (1 of 5 steps done)\n- ✅ Reproduce the failure\n- ▶️ Fix total() (running)\n- ⚪ Run the tests\n- ⏭️ Benchmark (skipped)\n- ❌ Lint <all> (failed)',
    );
    // The final card keeps where the checklist ended; a run without one shows none.
    expect(textOf(renderCard({ status: { ...working, outcome: 'completed' }, final: true }).blocks)).toContain(
      '*Steps* (1 of 5 steps done)',
    );
    expect(textOf(renderCard({ status, final: true }).blocks)).not.toContain('Steps');
    expect(renderGitHubCard({ status, final: true })).not.toContain('Steps');
  });

  it('say which bound stopped the run, and show the cost with the share the cache served', () => {
    const slack = renderCard({ status, final: true, answer: 'What was done and what is left.' });
    expect(slack.text).toBe('explore (anthropic:claude-sonnet-4-6): Spend cap reached (the $0.0500 per-run cap of person ada)');
    expect(textOf(slack.blocks)).toContain('*Cost:* $0.0612, cache 90 %');
    expect(textOf(slack.blocks)).toContain('*Spend cap:* $0.0500');
    const github = renderGitHubCard({ status, final: true });
    expect(github).toContain('💰 Spend cap reached (the $0.0500 per-run cap of person ada)');
    expect(github).toContain('Cost: $0.0612, cache 90 %');
  });

  it('name no bound for a run that completed, and no cache share before the cache was used', () => {
    const done = {
      ...status,
      outcome: 'completed' as const,
      endedBy: undefined,
      spendCap: undefined,
      tokens: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
    };
    const slack = renderCard({ status: done, final: true });
    expect(slack.text).toBe('explore (anthropic:claude-sonnet-4-6): Completed');
    expect(textOf(slack.blocks)).toContain('*Cost:* $0.0612');
    expect(textOf(slack.blocks)).not.toContain('cache');
  });

  it('say who stopped a stopped run, and show its last words as unfinished, not as its answer', () => {
    const stopped = { ...status, outcome: 'stopped' as const, stop: { by: 'U0ANA', reason: 'enough' } };
    const card = textOf(renderCard({ status: stopped, final: true, answer: 'Half a thought' }).blocks);
    expect(card).toContain('Stopped by <@U0ANA>: enough');
    expect(card).toContain('_Unfinished: it was stopped before it answered. What it had written so far:_');
    expect(card).toContain('Half a thought');
    expect(renderGitHubCard({ status: { ...stopped, stop: { by: 'github:ana' } }, final: true })).toContain('🛑 Stopped by ana');
  });

  it("on GitHub, promise an answer below only for a conversation's own run", () => {
    const done = { ...status, outcome: 'completed' as const, endedBy: undefined };
    expect(renderGitHubCard({ status: done, final: true })).toContain('The answer follows below.');
    const unitRun = renderGitHubCard({ status: { ...done, answersTo: 'unit' }, final: true });
    expect(unitRun).toContain("Its result goes into the ship unit's report.");
    expect(unitRun).not.toContain('follows below');
    const child = renderGitHubCard({ status: { ...done, answersTo: 'parent' }, final: true });
    expect(child).toContain('Its answer went to the run that delegated to it.');
    expect(renderGitHubCard({ status: { ...done, answersTo: 'unit' }, final: false })).not.toContain('report');
    // An automatic review that posted its review: that is its answer, and nothing follows.
    const review = renderGitHubCard({ status: { ...done, answersTo: 'review' }, final: true });
    expect(review).toContain('Its answer is the review it posted on this pull request.');
    expect(review).not.toContain('follows below');
  });

  it('say a setup copied in from the host as such, without its output', () => {
    const restored = { ...status, setup: { state: 'restored' as const, commands: 1, exitCode: 0, output: 'switchboard-setup: restored' } };
    expect(textOf(renderCard({ status: restored, final: true }).blocks)).toContain(
      "*Setup:* copied from this host's cache of an earlier run, not run again",
    );
    const github = renderGitHubCard({ status: restored, final: true });
    expect(github).toContain("Setup: copied from this host's cache of an earlier run, not run again");
    expect(github).not.toContain('Setup output');
  });
});
