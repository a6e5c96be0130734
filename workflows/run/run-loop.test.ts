import { ActivityFailure, RetryState } from '@temporalio/common';
import type { ModelTurnInput, ModelTurnResult, ToolCall } from '../../activities/models/types';
import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { RunCarry, RunInput } from '../contracts';
import { CallLog, FakeClock } from '../test-support';
import { RunControl } from './run-control';
import { RunLoop } from './run-loop';
import { RunState } from './run-state';
import { StatusCard } from './status-card';
import { TaskChildren } from './task-children';

function input(agent = 'explore'): RunInput {
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
  options: { agent?: string; suggestContinueAsNew?: boolean; onTurn?: (n: number) => void; before?: string[] } = {},
) {
  const clock = new FakeClock();
  const log = new CallLog();
  const state = new RunState(input(options.agent), clock.now());
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
    executeTools: async (calls) => calls.map((call) => ({ callId: call.id, name: call.name, content: `ran ${call.name}` })),
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

  it('settles stopped with who and why', async () => {
    const { run, state, control } = loop([turn('Looking.', [bash('1')]), turn('never')], {
      onTurn: () => (control.stopRequest = { by: 'ada', reason: 'enough' }),
    });
    await run.run();
    expect(state).toMatchObject({ outcome: 'stopped', endedBy: 'stopped by ada: enough', turns: 1 });
  });

  it('ends at the token cap after one closing turn offered no tools, which is the summary', async () => {
    const { run, state, log } = loop([turn('cut', [], { stopReason: 'max_tokens' }), turn('Done: a; left: b.', [bash('x')])]);
    await run.run();
    expect(state).toMatchObject({ outcome: 'tokens', turns: 2, finalText: 'Done: a; left: b.', summary: 'Done: a; left: b.' });
    expect(log.names().filter((name) => name !== 'statusCard')).toEqual(['modelTurn', 'closingTurn']);
    expect(log.inputs<ModelTurnInput>('closingTurn')[0].tools).toEqual([]);
    expect(state.toolCalls).toEqual([]);
  });

  it('ends at the turn guard after one closing turn offered no tools', async () => {
    const guard = input().profile.turnGuard;
    const many = Array.from({ length: guard + 1 }, (_, k) => turn(`step ${k}`, [bash(String(k))]));
    const { run, state, log } = loop(many);
    await run.run();
    expect(state).toMatchObject({ outcome: 'turns', turns: guard + 1, summary: `step ${guard}` });
    expect(log.inputs<ModelTurnInput>('closingTurn').map((request) => request.tools)).toEqual([[]]);
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
    expect(log.inputs<ModelTurnInput>('closingTurn')[0].tools).toEqual([]);
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
