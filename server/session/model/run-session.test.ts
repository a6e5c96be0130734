import type { Execution, SessionEvent } from '../../../infra/history/events';
import { recordedExecution } from '../test-support/recorded';
import { buildRunSession, type TurnItem } from './run-session';

const turns = (items: ReturnType<typeof buildRunSession>['items']) => items.filter((item): item is TurnItem => item.kind === 'turn');
const calls = (turn: TurnItem) => turn.calls.map((call) => `${call.name}:${call.activities.map((a) => a.type).join('+')}`);

describe('a run’s session, from its history', () => {
  it('puts each command and file under the call that made it, with exit codes, durations and the record', async () => {
    const { workflowId, execution } = await recordedExecution('run/completed-with-tools');
    const session = buildRunSession(workflowId, [execution]);
    expect(session).toMatchObject({ open: false, turns: 2, record: { outcome: 'completed' } });
    expect(session.items[0]).toMatchObject({ kind: 'request', text: 'write a note' });
    const [first, second] = turns(session.items);
    expect(calls(first)).toEqual(['write_file:writeFile', 'bash:bash']);
    expect(first.calls[1].activities[0]).toMatchObject({ state: 'completed', result: { exitCode: 0, output: 'hello\n' } });
    expect(second).toMatchObject({ turn: 2, purpose: 'turn', calls: [] });
    expect(session.filesWritten).toEqual([{ path: 'notes/hello.txt', bytes: 6, turn: 1 }]);
    expect(session.tokens.input).toBeGreaterThan(0);
    expect(session.unpriced).toEqual(['scripted:kit/files.yaml']);
  });

  it('shows steers and stops where they arrived, and the calls a stop cut short', async () => {
    const steered = await recordedExecution('run/steered');
    expect(buildRunSession(steered.workflowId, [steered.execution]).items.map((item) => item.kind)).toEqual([
      'request',
      'turn',
      'steer',
      'steer',
      'turn',
    ]);
    const stopped = await recordedExecution('run/stopped');
    const session = buildRunSession(stopped.workflowId, [stopped.execution]);
    expect(session.items.map((item) => item.kind)).toEqual(['request', 'turn', 'stop']);
    expect(session.record?.outcome).toBe('stopped');
    expect(turns(session.items)[0].calls[0].error).toMatch(/Cancelled|did not report/);
  });

  it('nests children where their task call started them, and marks a closing summary', async () => {
    const children = await recordedExecution('run/task-children');
    const [first] = turns(buildRunSession(children.workflowId, [children.execution]).items);
    expect(first.calls.map((call) => call.child?.workflowId.split('/').pop())).toEqual(['task-1-now', 'task-2-later']);
    expect(first.calls[0].child).toMatchObject({ state: 'completed', record: { outcome: 'completed' } });
    const summarised = await recordedExecution('run/budget-summarised');
    const session = buildRunSession(summarised.workflowId, [summarised.execution]);
    expect(turns(session.items).map((turn) => turn.purpose)).toEqual(['turn', 'turn', 'closing']);
    expect(calls(turns(session.items)[1])).toEqual(['wait_for_job:jobStatus+jobStatus+jobStatus']);
    expect(session.record?.outcome).toBe('budget');
  });

  it('reads a continue-as-new chain as one conversation, or from the carry when earlier executions are left out', async () => {
    const first = await recordedExecution('run/continued-as-new-first');
    const last = await recordedExecution('run/continued-as-new-last');
    // (The recording has a middle execution, turn 2, between these two.)
    const whole = buildRunSession(first.workflowId, [first.execution, last.execution]);
    expect(whole.items.map((item) => (item.kind === 'turn' ? item.turn : item.kind))).toEqual(['request', 1, 'continued', 3]);
    expect(whole).toMatchObject({ open: false, turns: 3, record: { outcome: 'completed' } });
    const tail = buildRunSession(last.workflowId, [last.execution], { omitted: 1 });
    expect(tail.items.map((item) => (item.kind === 'turn' ? item.turn : item.kind))).toEqual(['request', 'omitted', 3]);
  });

  it('tells a compaction turn (no tools, another turn straight after) from a turn a steer followed', () => {
    const at = 1_000;
    let id = 0;
    const event = (body: Record<string, unknown>) => ({ id: ++id, at: at + id, ...body }) as SessionEvent;
    const turn = (text: string) => {
      const scheduled = event({ kind: 'activityScheduled', activityType: 'modelTurn', inputBytes: 10 });
      return [
        scheduled,
        event({
          kind: 'activityCompleted',
          scheduledId: scheduled.id,
          result: { text, toolCalls: [], stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1 }, model: 'm' },
        }),
      ];
    };
    const input = { request: 'go', context: [], profile: { budget: { minutes: 5 }, agent: 'a' }, requester: { id: 'p', surface: 'cli' } };
    const events: SessionEvent[] = [
      event({ kind: 'started', workflowType: 'agentRunWorkflow', runId: 'r', input }),
      ...turn('a summary of older turns'),
      ...turn('the answer'),
      event({ kind: 'signal', name: 'steer', input: { text: 'more' } }),
      ...turn('after the steer'),
    ];
    const execution: Execution = { runId: 'r', events };
    const session = buildRunSession('run:x', [execution]);
    expect(turns(session.items).map((t) => [t.purpose, t.turn])).toEqual([
      ['compaction', 1],
      ['turn', 1],
      ['turn', 2],
    ]);
    expect(session.turns).toBe(2);
  });
});
