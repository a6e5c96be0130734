import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRunKit, type RunKit } from './helpers/run-kit';

jest.setTimeout(90_000);

/** A custom agent with a small turn guard and token cap, so both bounds are reached in a few turns. */
const BRIEF_AGENT = `displayName: Brief
description: A short investigation with a two-turn guard, for the bounds tests.
toolset: explore
machine: repo-cold
identity: read
budgetMinutes: 10
turnGuard: 2
tokenCap: 2000
prompt: Investigate briefly and answer.
`;

/** A one-minute preset, the shortest budget there is, so the deadline comes in real time. */
const TIMED_AGENT = `displayName: Timed
description: Waits on a job under a one-minute budget, for the bounds tests.
toolset: explore
machine: repo-cold
identity: read
budgetMinutes: 1
tokenCap: 8000
prompt: Wait for the job and answer.
`;

/*
 * On the shared dev server, not the time-skipping one. The time-skipping server refuses a
 * workflow task that cancels a timer or activity which fired or finished while the task ran
 * (and skips its clock during a task scheduled behind another), after which the worker fails
 * every later task; a real server accepts both. A run's end always cancels something (the
 * status card's throttle timer, the job poll the deadline cuts short), so the budget case flaked
 * there under load ("TimerMachine in state CancelTimerCommandSent", "ACTIVITY_UNKNOWN").
 */

describe('run bounds', () => {
  let kit: RunKit;
  beforeAll(async () => {
    const agentsDir = mkdtempSync(join(tmpdir(), 'switchboard-agents-'));
    writeFileSync(join(agentsDir, 'brief.agent.yaml'), BRIEF_AGENT);
    writeFileSync(join(agentsDir, 'timed.agent.yaml'), TIMED_AGENT);
    kit = await startRunKit('bounds', { customAgentsDir: agentsDir });
  });
  afterAll(async () => {
    await kit?.close();
  });

  it('ends at the budget deadline while wait_for_job polls a job that never finishes, then writes a closing summary without tools; the record names the bound', async () => {
    // The job "started" by the first command never writes its exit file.
    const model = kit.script('budget', [
      { text: 'Starting the job.', toolCalls: [{ name: 'bash', input: { command: 'echo started' } }] },
      { text: 'Waiting for the job.', toolCalls: [{ name: 'wait_for_job', input: { exitFile: '/tmp/never.exit', pollSeconds: 20 } }] },
      // The closing summary, after the deadline: offered no tools, so its call is never run.
      {
        text: 'Summary: the job started and never finished. I was told: {{lastUser}}',
        toolCalls: [{ name: 'bash', input: { command: 'echo late' } }],
      },
    ]);
    const { runId } = await kit.start('wait for the long job', { agent: 'timed', model });
    const record = await kit.result(runId);
    expect(record.profile.budget).toMatchObject({ minutes: 1, boundedBy: 'preset' });
    expect(record).toMatchObject({ outcome: 'budget', turns: 3, endedBy: 'the 1-minute budget (preset)' });
    // Polls every 20 s from the first; the wait ended with the budget, not the job.
    expect(record.jobWaits.polls).toBeGreaterThanOrEqual(2);
    expect(record.jobWaits.waitedMs).toBeGreaterThanOrEqual(20_000);
    expect(record.endedAt - record.startedAt).toBeGreaterThanOrEqual(60_000);
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['bash', true],
      ['wait_for_job', false],
    ]);
    const summary =
      'Summary: the job started and never finished. I was told: (system) The run has reached the 1-minute budget. Tools are no longer available: answer now with what you found, what is done and what is left.';
    expect(record).toMatchObject({ finalText: summary, summary });
    expect(record.usage.map((turn) => turn.turn)).toEqual([1, 2, 3]);
  });

  it('ends at the turn guard with a last summary turn in which no tool runs', async () => {
    const model = kit.script('guard', [
      { text: 'Step one.', toolCalls: [{ name: 'bash', input: { command: 'echo one' } }] },
      { text: 'Step two.', toolCalls: [{ name: 'bash', input: { command: 'echo two' } }] },
      { text: 'Summary. I was told: {{lastUser}}', toolCalls: [{ name: 'bash', input: { command: 'echo three > three.txt' } }] },
    ]);
    const { runId } = await kit.start('look into it', { agent: 'brief', model });
    const record = await kit.result(runId);
    expect(record.profile).toMatchObject({ agent: 'brief', turnGuard: 2 });
    expect(record).toMatchObject({ outcome: 'turns', endedBy: 'the turn guard (2 turns)', turns: 3 });
    // The summary turn was offered no tools, and the call it made anyway was never executed.
    expect(record.toolCalls.map((call) => call.name)).toEqual(['bash', 'bash']);
    expect(record.finalText).toContain(
      'Summary. I was told: (system) The run has reached the turn guard of 2 turns. Tools are no longer available',
    );
    expect(record.summary).toBe(record.finalText);
  });

  it('ends at the token cap when a turn is cut off at the per-call output limit, with a closing summary as the answer', async () => {
    const model = kit.script('tokens', [
      { text: 'Reading.', toolCalls: [{ name: 'bash', input: { command: 'echo read' } }], usage: { inputTokens: 500, outputTokens: 40 } },
      { text: 'A very long answer that was cut', usage: { inputTokens: 900, outputTokens: 2000 } },
      { text: 'Summary: explained the first half; the second is left. {{lastUser}}', usage: { inputTokens: 1000, outputTokens: 60 } },
    ]);
    const { runId } = await kit.start('explain everything', { agent: 'brief', model });
    const record = await kit.result(runId);
    expect(record.profile.tokenCap).toBe(2000);
    expect(record).toMatchObject({
      outcome: 'tokens',
      endedBy: 'the token cap of 2000 per call',
      turns: 3,
      tokens: { input: 2400, output: 2100 },
    });
    const summary =
      'Summary: explained the first half; the second is left. (system) The run has reached the token cap of 2000 tokens per call. Tools are no longer available: answer now with what you found, what is done and what is left.';
    expect(record).toMatchObject({ finalText: summary, summary });
  });
});
