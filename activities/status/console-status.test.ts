import { createLogger } from '../../infra/logger';
import { createConsoleStatusActivities } from './console-status';
import type { RunStatus } from '../../workflows/contracts';

const status: RunStatus = {
  runId: 'run:thread:api:x:1',
  agent: 'general',
  model: 'm',
  phase: 'finished',
  turns: 1,
  turnGuard: 10,
  tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
  cost: { usd: 0, searches: 0, searchUsd: 0, unpriced: [] },
  elapsedMs: 5,
  budget: { minutes: 5, boundedBy: 'preset', description: '5 min' },
  outcome: 'completed',
};

describe('console status activities', () => {
  const activities = createConsoleStatusActivities({ logger: createLogger({ level: 'silent' }) });

  it('never report an API target as confirmed: nothing is sent there, the record is the report', async () => {
    const card = await activities.statusCard({ runId: status.runId, effectKey: 'k', replyTarget: { kind: 'api' }, status, final: true });
    expect(card).toMatchObject({ status: 'recorded', reason: expect.stringMatching(/sent nothing/) });
    expect(await activities.deliverReply({ effectKey: 'k2', replyTarget: { kind: 'api' }, text: 'hi' })).toMatchObject({
      status: 'recorded',
    });
  });

  it('say a CLI target, or a chat target without delivery, was only logged, never confirmed', async () => {
    expect(await activities.deliverReply({ effectKey: 'k3', replyTarget: { kind: 'cli' }, text: 'hi' })).toMatchObject({
      status: 'logged',
      reason: expect.stringMatching(/CLI target is sent nothing/),
    });
    const github = { kind: 'github' as const, repo: 'acme/app', pullRequest: 3 };
    expect(await activities.deliverReply({ effectKey: 'k4', replyTarget: github, text: 'hi' })).toMatchObject({
      status: 'logged',
      reason: expect.stringMatching(/no github delivery is configured .*GITHUB_WRITE_TOKEN/),
    });
    const slack = { kind: 'slack' as const, team: 'T', channel: 'C', threadTs: '1.2' };
    expect(await activities.statusCard({ runId: status.runId, effectKey: 'k5', replyTarget: slack, status, final: true })).toMatchObject({
      status: 'logged',
      reason: expect.stringMatching(/SLACK_BOT_TOKEN/),
    });
  });
});
