import { DEFAULT_SHIP_SETTINGS } from '../../activities/agents/agent-setup';
import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { RunInput, RunRecord } from '../contracts';
import { FakeClock } from '../test-support';
import { RunControl } from './run-control';
import { RunState } from './run-state';
import { MAX_TASK_DEPTH, TaskChildren } from './task-children';

function children(parent?: RunInput['parent']) {
  const clock = new FakeClock();
  const profile = resolveProfile({ agent: getAgent(builtinCatalog(), 'coding')!, config: defaultAgentsConfig(), directives: {} });
  const input: RunInput = {
    threadId: 't',
    profile,
    system: 's',
    request: 'r',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'cli' },
    ...(parent ? { parent } : {}),
  };
  const state = new RunState(input, clock.now());
  const control = new RunControl(state, clock.now);
  const started: Array<{ workflowId: string; input: RunInput }> = [];
  let finish: (record: RunRecord) => void = () => undefined;
  const tasks = new TaskChildren({
    runId: 'run:t:1',
    state,
    control,
    clock,
    setup: { loadAgentSetup: async () => ({ catalog: builtinCatalog(), config: defaultAgentsConfig(), ship: DEFAULT_SHIP_SETTINGS }) },
    workspaceKey: 't',
    startRun: async (workflowId, child) => {
      started.push({ workflowId, input: child });
      const result = new Promise<RunRecord>((resolve) => (finish = resolve));
      return { result: () => result };
    },
  });
  return { tasks, state, started, finish: (record: Partial<RunRecord>) => finish(record as RunRecord) };
}

const call = { id: 'c1', name: 'task', input: {} };
const done = { outcome: 'completed', turns: 2, finalText: 'found it', profile: { agent: 'worker' } } as Partial<RunRecord>;

describe('TaskChildren', () => {
  it('refuses delegation past the depth limit without starting anything', async () => {
    const { tasks, started } = children({ workflowId: 'run:t:0', depth: MAX_TASK_DEPTH });
    const result = await tasks.start(call, { agent_type: 'worker', name: 'deep', prompt: 'p' });
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('limited to 2 levels') });
    expect(started).toEqual([]);
  });

  it('follows a background child: its job id at once, its answer in the conversation once it ends', async () => {
    const { tasks, state, started, finish } = children();
    const result = await tasks.start(call, { agent_type: 'worker', name: 'part-a', prompt: 'do part a' });
    expect(result.content).toContain('job id run:t:1/task-1-part-a');
    expect(started[0]).toMatchObject({
      workflowId: 'run:t:1/task-1-part-a',
      input: { request: 'do part a', parent: { workflowId: 'run:t:1', depth: 1 }, workspaceKey: 't' },
    });
    expect(tasks.pending()).toBe(true);
    finish(done);
    await new Promise((resolve) => setImmediate(resolve));
    expect(tasks.anyDone()).toBe(true);
    tasks.collect();
    expect(state.messages.at(-1)).toEqual({
      role: 'user',
      text: expect.stringContaining(
        '(background task run:t:1/task-1-part-a finished) Task run:t:1/task-1-part-a (worker) ended completed after 2 turns.\nfound it',
      ),
    });
    expect(state.children[0]).toMatchObject({ index: 1, mode: 'background', outcome: 'completed' });
    expect(tasks.size).toBe(0);
  });

  it('waits for a sync child and answers with its record', async () => {
    const { tasks, finish } = children();
    const answer = tasks.start(call, { agent_type: 'worker', name: 'now', prompt: 'p', mode: 'sync' });
    await new Promise((resolve) => setImmediate(resolve));
    finish(done);
    expect(await answer).toMatchObject({ isError: false, content: expect.stringContaining('Task now (worker) ended completed') });
  });
});
