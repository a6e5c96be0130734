import { builtinCatalog, defaultAgentsConfig, getAgent, resolveProfile } from '../../agents';
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
