import { recordedExecution } from '../test-support/recorded';
import { buildThreadSession } from './thread-session';

describe('a thread’s session, from its history', () => {
  it('shows each message, the runs and units it started, and its replies and refusals, in order', async () => {
    const { workflowId, execution } = await recordedExecution('thread/two-runs-and-a-refusal');
    const session = buildThreadSession(workflowId, [execution]);
    expect(session.items.map((item) => item.kind)).toEqual(['message', 'run', 'reply', 'message', 'reply', 'message', 'run', 'reply']);
    expect(session.runIds).toEqual([`run:${workflowId}:1`, `run:${workflowId}:2`]);
    expect(session.items[1]).toMatchObject({ kind: 'run', child: { state: 'completed', record: { outcome: 'completed' } } });
    expect(session.items[4]).toMatchObject({ kind: 'reply', text: expect.stringContaining('There is no agent called "nobody"') });

    const unit = await recordedExecution('thread/ship-request');
    const shipped = buildThreadSession(unit.workflowId, [unit.execution]);
    expect(shipped.items.map((item) => item.kind)).toEqual(['message', 'unit', 'reply']);
    expect(shipped.unitIds).toHaveLength(1);
  });

  it('joins a message sent by update with the thread’s decision', async () => {
    const { workflowId, execution } = await recordedExecution('thread/two-runs-by-update');
    const session = buildThreadSession(workflowId, [execution]);
    const messages = session.items.filter((item) => item.kind === 'message');
    expect(messages.length).toBeGreaterThan(0);
    expect(messages[0]).toMatchObject({ outcome: { kind: 'run', runId: `run:${workflowId}:1` } });
  });

  it('reads the runs it started by a local activity (eager start) and their ends from `runEnded` or the run watch’s look', async () => {
    const { workflowId, execution } = await recordedExecution('thread/eager-runs');
    const session = buildThreadSession(workflowId, [execution]);
    expect(session.runIds).toEqual([`run:${workflowId}:1`, `run:${workflowId}:2`]);
    const runs = session.items.filter((item) => item.kind === 'run');
    expect(runs).toEqual([
      expect.objectContaining({
        child: expect.objectContaining({ state: 'completed', record: expect.objectContaining({ outcome: 'completed' }) }),
      }),
      expect.objectContaining({
        child: expect.objectContaining({ state: 'completed', record: expect.objectContaining({ outcome: 'stopped' }) }),
      }),
    ]);
    const terminated = await recordedExecution('thread/eager-run-terminated');
    const watched = buildThreadSession(terminated.workflowId, [terminated.execution]);
    expect(watched.items.find((item) => item.kind === 'run')).toMatchObject({ child: { state: 'terminated' } });
    const adopted = await recordedExecution('thread/eager-reset-adopted');
    const reset = buildThreadSession(adopted.workflowId, [adopted.execution]);
    expect(reset.items.find((item) => item.kind === 'run')).toMatchObject({
      child: { state: 'completed', record: { finalText: 'Answered once.' } },
    });
  });
});
