import { ActivityFailure, RetryState } from '@temporalio/common';
import type { ModelTurnInput, ModelTurnResult, ToolCall } from '../contracts/model';
import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { RunCarry, RunInput } from '../contracts';
import { CallLog, FakeClock } from '../test-support';
import { RunControl } from './run-control';
import { RunLoop } from './run-loop';
import { RunState } from './run-state';
import { StatusCard } from './status-card';
import { TaskChildren } from './task-children';

function input(agent = 'explore', extra: Partial<RunInput> = {}): RunInput {
  const profile = resolveProfile({
    agent: getAgent(builtinCatalog(), agent)!,
    config: defaultAgentsConfig(),
    directives: { budgetMinutes: 30 },
  });
  return {
    threadId: 't',
    profile,
    system: 's',
    request: 'why?',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'cli' },
    ...extra,
  };
}

function turn(text: string, toolCalls: ToolCall[] = [], extra: Partial<ModelTurnResult> = {}): ModelTurnResult {
  return {
    text,
    toolCalls,
    stopReason: toolCalls.length ? 'tool_use' : 'end_turn',
    usage: { inputTokens: 10, outputTokens: 5 },
    model: 'scripted:test',
    ...extra,
  };
}

/** A run loop over fakes: the model answers `turns` in order; tools answer "ran <name>". */
function loop(
  turns: ModelTurnResult[],
  options: {
    agent?: string;
    suggestContinueAsNew?: boolean;
    onTurn?: (n: number) => void;
    before?: string[];
    input?: Partial<RunInput>;
    results?: (call: ToolCall) => string;
  } = {},
) {
  const clock = new FakeClock();
  const log = new CallLog();
  const state = new RunState(input(options.agent, options.input), clock.now());
  const control = new RunControl(state, clock.now);
  const card = new StatusCard({
    runId: 'run:t:1',
    replyTarget: { kind: 'cli' },
    state,
    status: { statusCard: log.fn('statusCard', () => ({ status: 'confirmed' as const })) },
    clock,
    nonCancellable: (work) => work(),
  });
  const children = new TaskChildren({
    vet: async () => ({ ok: true }) as never,
    patched: () => true,
    runId: 'run:t:1',
    state,
    control,
    clock,
    setup: { loadAgentSetup: () => Promise.reject(new Error('no tasks in these tests')) },
    workspaceKey: 't',
    startRun: () => Promise.reject(new Error('no tasks in these tests')),
  });
  const carried: RunCarry[] = [];
  let played = 0;
  const play = (request: ModelTurnInput) => {
    options.onTurn?.(played);
    const next = turns[played++];
    if (!next) throw new Error(`no scripted turn ${played} (tools offered: ${request.tools.length})`);
    return next;
  };
  const run = new RunLoop({
    runId: 'run:t:1',
    state,
    control,
    clock,
    card,
    children,
    models: { modelTurn: log.fn('modelTurn', play) },
    // As the activity fails for good: its retries ran out.
    closingModels: {
      modelTurn: log.fn('closingTurn', (request: ModelTurnInput) => {
        if (played >= turns.length) throw new ActivityFailure('model down', 'modelTurn', '9', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'test');
        return play(request);
      }),
    },
    // A history recorded before a patch answers false for it.
    patched: (id) => !options.before?.includes(id),
    executeTools: async (calls) =>
      calls.map((call) => ({ callId: call.id, name: call.name, content: options.results?.(call) ?? `ran ${call.name}` })),
    cancellable: async (work, when) => (control.stopRequest || (!when?.afterDeadline && control.pastDeadline()) ? undefined : work()),
    continueAsNewSuggested: () => options.suggestContinueAsNew ?? false,
    continueAsNew: async (carry) => {
      carried.push(carry);
      throw Object.assign(new Error('continue as new'), { name: 'ContinueAsNew' });
    },
  });
  return { run, state, control, log, carried, clock };
}

const bash = (id: string): ToolCall => ({ id, name: 'bash', input: { command: 'ls' } });

describe('RunLoop', () => {
  it('turns, runs the tools, and completes when the model answers without tools', async () => {
    const { run, state, log } = loop([turn('Looking.', [bash('1')]), turn('Found it.')]);
    await run.run();
    expect(state).toMatchObject({ outcome: 'completed', turns: 2, finalText: 'Found it.' });
    expect(state.toolCalls).toEqual([{ turn: 1, name: 'bash', ok: true }]);
    expect(log.inputs<ModelTurnInput>('modelTurn').map((request) => request.turn)).toEqual([1, 2]);
  });

  it('takes steers into the conversation before the next turn', async () => {
    const { run, state } = loop([turn('Looking.', [bash('1')]), turn('Steered.')], {
      onTurn: (n) => n === 1 || state.pendingSteers.push({ text: 'use v2', by: 'ada' }),
    });
    await run.run();
    expect(state.messages).toContainEqual({ role: 'user', text: '(steer from ada) use v2' });
  });

  it("is told once before it may finish without answering a unit's findings, and finishes after answering (issue 33)", async () => {
    const findings = [
      { id: 'F1', title: 'No greeting' },
      { id: 'F2', title: 'Shouting' },
    ];
    const answered = loop([turn('Done.'), turn('Answering.', [{ id: 'd', name: 'submit_dispositions', input: {} }]), turn('Now done.')], {
      agent: 'coding',
      input: { submitsTo: 'unit', findings },
      results: (call) => {
        if (call.name === 'submit_dispositions') answered.state.submissions.submit_dispositions = { dispositions: [] };
        return 'recorded';
      },
    });
    await answered.run.run();
    expect(answered.state).toMatchObject({ outcome: 'completed', turns: 3, finalText: 'Now done.', reminded: 1 });
    expect(answered.state.messages).toContainEqual({
      role: 'user',
      text: expect.stringMatching(/^You have not answered the review's findings: F1, F2\. Before you finish, call submit_dispositions/),
    });
    // Told once: a run that still does not answer finishes, and the unit sees its findings unanswered.
    const silent = loop([turn('Done.'), turn('Still done.')], { agent: 'coding', input: { submitsTo: 'unit', findings } });
    await silent.run.run();
    expect(silent.state).toMatchObject({ outcome: 'completed', turns: 2, reminded: 1 });
    // A run with no findings to answer is never told.
    const plain = loop([turn('Done.')], { agent: 'coding', input: { submitsTo: 'unit' } });
    await plain.run.run();
    expect(plain.state).toMatchObject({ outcome: 'completed', turns: 1, reminded: 0 });
  });

  it('settles stopped with who and why', async () => {
    const { run, state, control } = loop([turn('Looking.', [bash('1')]), turn('never')], {
      onTurn: () => (control.stopRequest = { by: 'ada', reason: 'enough' }),
    });
    await run.run();
    expect(state).toMatchObject({ outcome: 'stopped', endedBy: 'stopped by ada: enough', turns: 1 });
  });

  it("ends at the token cap after one closing turn sent with the run's tools (a call it makes is ignored), which is the summary", async () => {
    const { run, state, log } = loop([turn('cut', [], { stopReason: 'max_tokens' }), turn('Done: a; left: b.', [bash('x')])]);
    await run.run();
    expect(state).toMatchObject({ outcome: 'tokens', turns: 2, finalText: 'Done: a; left: b.', summary: 'Done: a; left: b.' });
    expect(log.names().filter((name) => name !== 'statusCard')).toEqual(['modelTurn', 'closingTurn']);
    const [first] = log.inputs<ModelTurnInput>('modelTurn');
    const [closing] = log.inputs<ModelTurnInput>('closingTurn');
    // The same tools and parameters as every turn, so the cached prefix is read.
    expect(closing).toMatchObject({ purpose: 'summary', tools: first.tools, maxTokens: first.maxTokens });
    expect(closing.tools.length).toBeGreaterThan(0);
    expect(state.toolCalls).toEqual([]);
    expect(state.messages.at(-1)).toEqual({ role: 'assistant', text: 'Done: a; left: b.', toolCalls: [] });
    expect(state.usage.map((entry) => entry.purpose)).toEqual([undefined, 'summary']);
  });

  it('ends at the turn guard after one closing turn', async () => {
    const guard = input().profile.turnGuard;
    const many = Array.from({ length: guard + 1 }, (_, k) => turn(`step ${k}`, [bash(String(k))]));
    const { run, state, log } = loop(many);
    await run.run();
    expect(state).toMatchObject({ outcome: 'turns', turns: guard + 1, summary: `step ${guard}` });
    expect(log.inputs<ModelTurnInput>('closingTurn').map((request) => request.purpose)).toEqual(['summary']);
  });

  it('ends at the budget with a closing turn written after the deadline', async () => {
    const { run, state, log, clock } = loop([turn('Looking.', [bash('1')]), turn('Found a; b is left.')], {
      onTurn: (n) => n === 0 && (clock.time += 31 * 60_000),
    });
    await run.run();
    expect(state).toMatchObject({
      outcome: 'budget',
      endedBy: 'the 30-minute budget (directive)',
      turns: 2,
      summary: 'Found a; b is left.',
    });
    expect(state.messages.at(-2)).toEqual({
      role: 'user',
      text: '(system) The run has reached the 30-minute budget. Tools are no longer available: answer now with what you found, what is done and what is left.',
    });
    expect(log.inputs<ModelTurnInput>('closingTurn')[0].purpose).toBe('summary');
  });

  it('histories from before the cache plan: the closing turn is offered no tools and carries no cache hint', async () => {
    const { run, state, log } = loop([turn('cut', [], { stopReason: 'max_tokens' }), turn('Done.')], { before: ['cache-plan'] });
    await run.run();
    expect(state).toMatchObject({ outcome: 'tokens', summary: 'Done.' });
    const [first] = log.inputs<ModelTurnInput>('modelTurn');
    const [closing] = log.inputs<ModelTurnInput>('closingTurn');
    expect(first.cache).toBeUndefined();
    expect(first.cacheTtl).toBe('1h');
    expect(closing.tools).toEqual([]);
    expect(closing.cache).toBeUndefined();
  });

  it('a closing turn that answers with tool calls only is asked once more without tools, writing no cache; both are counted', async () => {
    const { run, state, log } = loop([turn('cut', [], { stopReason: 'max_tokens' }), turn('', [bash('x')]), turn('Summary.')]);
    await run.run();
    expect(state).toMatchObject({ outcome: 'tokens', summary: 'Summary.', turns: 2 });
    const closing = log.inputs<ModelTurnInput>('closingTurn');
    expect(closing.map((request) => [request.tools.length > 0, request.cache !== undefined])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(state.usage.map((entry) => entry.purpose)).toEqual([undefined, 'summary', 'summary']);
  });

  it('ends at its spend cap like its time budget: a closing summary, and the cap in the record', async () => {
    const priced = (text: string, calls: ToolCall[] = []) => turn(text, calls, { costUsd: 0.6 });
    const spendCap = { usd: 1, boundedBy: "the $1.00 per-run cap of person ada's runs" };
    const { run, state, log } = loop([priced('One.', [bash('1')]), priced('Two.', [bash('2')]), priced('Spent: a done, b left.')], {
      input: { spendCap },
    });
    await run.run();
    expect(state).toMatchObject({ outcome: 'spend', endedBy: spendCap.boundedBy, turns: 3, summary: 'Spent: a done, b left.' });
    expect(state.cost.usd).toBe(1.8);
    expect(state.messages.at(-2)).toMatchObject({ role: 'user', text: expect.stringContaining('its spend cap of $1.00 ($1.20 spent)') });
    expect(log.inputs<ModelTurnInput>('closingTurn').map((request) => request.purpose)).toEqual(['summary']);
    expect(state.record('run:t:1', 0)).toMatchObject({ outcome: 'spend', spendCap });
  });

  it('writes the prefix the next request keeps and reads where the last one wrote', async () => {
    const big = 'x'.repeat(5_000);
    const { run, log } = loop([turn('a', [bash('1')]), turn('b', [bash('2'), bash('3')]), turn('c', [bash('4')]), turn('done')], {
      results: (call) => (call.id === '2' ? big : 'small'),
    });
    await run.run();
    const hints = log.inputs<ModelTurnInput>('modelTurn').map((request) => request.cache);
    // [task] → [task, a, r1] → [task, a, r1, b, r2+3(big)] → [task, a, r1, b, r2+3(cut), c, r4]
    expect(hints).toEqual([{ stable: 1 }, { stable: 3, previous: 1 }, { stable: 4, previous: 3 }, { stable: 7, previous: 4 }]);
    expect(log.inputs<ModelTurnInput>('modelTurn').every((request) => request.cacheTtl === '5m')).toBe(true);
  });

  it('writes with the 1-hour lifetime when the run is about to wait: a detached job', async () => {
    const detach: ToolCall = { id: 'j', name: 'bash', input: { command: "setsid -f sh -c 'make > /tmp/job.log'" } };
    const { run, log } = loop([
      turn('start', [detach]),
      turn('wait', [{ id: 'w', name: 'wait_for_job', input: { exitFile: '/tmp/x' } }]),
      turn('done'),
    ]);
    await run.run();
    expect(log.inputs<ModelTurnInput>('modelTurn').map((request) => request.cacheTtl)).toEqual(['5m', '1h', '1h']);
  });

  it("counts a compaction turn, sent with the run's tools, and keeps only the task in its cache plan", async () => {
    const huge = 'y'.repeat(30_000);
    const turns = Array.from({ length: 6 }, (_, k) => turn(`step ${k}`, [bash(String(k))]));
    const { run, state, log } = loop([...turns, turn('done')], { results: () => huge });
    // A small window: the newest result alone passes 60 % of it, so a compaction comes once there is a middle to summarise.
    state.contextWindow = 12_000;
    // Compaction turns answer from the same script, in order.
    await run.run();
    const compaction = log.inputs<ModelTurnInput>('modelTurn').find((request) => request.purpose === 'compaction');
    expect(compaction).toBeDefined();
    expect(compaction!.tools.length).toBeGreaterThan(0);
    expect(compaction!.cache).toMatchObject({ stable: state.taskLength });
    expect(state.usage.some((entry) => entry.purpose === 'compaction')).toBe(true);
  });

  it('a closing turn that fails leaves the bound and the last text', async () => {
    const { run, state } = loop([turn('cut', [], { stopReason: 'max_tokens' })]);
    await run.run();
    expect(state).toMatchObject({ outcome: 'tokens', turns: 1, finalText: 'cut' });
    expect(state.summary).toBeUndefined();
  });

  it('histories from before the patch: no closing turn at the budget or token cap', async () => {
    const { run, state, log } = loop([turn('cut', [], { stopReason: 'max_tokens' })], { before: ['closing-summary'] });
    await run.run();
    expect(state).toMatchObject({ outcome: 'tokens', turns: 1, finalText: 'cut' });
    expect(log.names()).not.toContain('closingTurn');
  });

  it('continues as new after a tool round when Temporal suggests it, carrying the conversation', async () => {
    const { run, state, carried } = loop([turn('Looking.', [bash('1')])], { suggestContinueAsNew: true });
    await expect(run.run()).rejects.toMatchObject({ name: 'ContinueAsNew' });
    expect(carried).toHaveLength(1);
    expect(carried[0]).toMatchObject({ turns: 1, messages: state.messages });
  });

  it('settles failed with the error when a turn fails for good', async () => {
    const { run, state } = loop([]);
    await run.run();
    expect(state.outcome).toBe('failed');
    expect(state.endedBy).toContain('no scripted turn 1');
  });
});
