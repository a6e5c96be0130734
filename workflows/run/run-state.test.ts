import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { RunInput } from '../contracts';
import { RunState } from './run-state';

function input(carry?: RunInput['carry']): RunInput {
  const profile = resolveProfile({
    agent: getAgent(builtinCatalog(), 'explore')!,
    config: defaultAgentsConfig(),
    directives: { budgetMinutes: 30 },
  });
  return {
    threadId: 't',
    profile,
    system: 's',
    request: 'why?',
    requester: { id: 'ada', surface: 'cli' },
    context: [{ role: 'user', text: 'earlier' }],
    replyTarget: { kind: 'cli' },
    ...(carry ? { carry } : {}),
  };
}

describe('RunState', () => {
  it('starts from the saved context and the request, with the deadline from the budget', () => {
    const state = new RunState(input(), 1_000);
    expect(state.messages).toEqual([
      { role: 'user', text: 'earlier' },
      { role: 'user', text: 'why?' },
    ]);
    expect(state.deadline).toBe(1_000 + 30 * 60_000);
    expect(state.status('run:t:1', 61_000)).toMatchObject({
      elapsedMs: 60_000,
      budget: { minutes: 30, boundedBy: 'directive', description: '30 min (budget directive; preset asks 120)' },
    });
  });

  it("joins steers as the person's words before the next turn, and counts turns and tokens", () => {
    const state = new RunState(input(), 0);
    state.pendingSteers.push({ text: 'use v2', by: 'ada' }, { text: 'and be quick' });
    expect(state.drainSteers()).toBe(2);
    expect(state.messages.slice(-2)).toEqual([
      { role: 'user', text: '(steer from ada) use v2' },
      { role: 'user', text: '(steer) and be quick' },
    ]);
    state.recordTurn({ text: 'ok', toolCalls: [], stopReason: 'end_turn', usage: { inputTokens: 10, outputTokens: 3 }, model: 'm' });
    expect(state).toMatchObject({ turns: 1, tokens: { input: 10, output: 3 }, finalText: 'ok' });
  });

  it('records the first bound that ended it, and resumes from a carry across continue-as-new', () => {
    const state = new RunState(input(), 0);
    state.finish('budget', 'the 30-minute budget (directive)');
    state.finish('stopped');
    expect(state.record('run:t:1', 5).outcome).toBe('budget');
    const resumed = new RunState(input(state.carry()), 999_999);
    expect(resumed.deadline).toBe(state.deadline);
    expect(resumed.messages).toEqual(state.messages);
  });
});

describe('RunState keeps the conversation inside the window', () => {
  it('asks for a compaction past the share of the window, and applies it', () => {
    const state = new RunState(input(), 0);
    state.recordTurn({
      text: '',
      toolCalls: [],
      stopReason: 'tool_use',
      usage: { inputTokens: 1, outputTokens: 1 },
      model: 'm',
      contextWindow: 10_000,
    });
    for (let k = 0; k < 20; k += 1) {
      state.recordTurn({
        text: `t${k}`,
        toolCalls: [{ id: `c${k}`, name: 'bash', input: {} }],
        stopReason: 'tool_use',
        usage: { inputTokens: 1, outputTokens: 1 },
        model: 'm',
      });
      state.recordToolResults([{ callId: `c${k}`, name: 'bash', content: 'y'.repeat(1_900) }]);
    }
    expect(state.needsCompaction()).toBe(true);
    expect(state.compactionMessages().at(-1)).toMatchObject({ role: 'user' });
    state.applyCompaction({
      text: 'summary',
      toolCalls: [],
      stopReason: 'end_turn',
      usage: { inputTokens: 5, outputTokens: 5 },
      model: 'm',
    });
    expect(state.needsCompaction()).toBe(false);
    expect(state.messages.slice(0, 2)).toEqual([
      { role: 'user', text: 'earlier' },
      { role: 'user', text: 'why?' },
    ]);
    expect(state.carry()).toMatchObject({ taskLength: 2, contextWindow: 10_000, compactions: 1 });
  });
});
