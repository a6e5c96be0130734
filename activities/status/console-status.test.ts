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

  it('log a CLI target as before', async () => {
    expect(await activities.deliverReply({ effectKey: 'k3', replyTarget: { kind: 'cli' }, text: 'hi' })).toEqual({ status: 'confirmed' });
  });
});
