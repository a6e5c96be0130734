/**
 * Fakes for driving workflow parts (phase classes, the run loop, executors) in unit tests
 * without a Temporal server. Test-only: nothing in a workflow imports it.
 */
import { builtinCatalog, getAgent, resolveProfile } from '../agents';
import { defaultAgentsConfig } from '../agents/config';
import type { RunInput } from './contracts';
import type { WorkflowClock } from './run/run-control';

/**
 * Workflow time that moves only when a wait runs out. `condition(test, timeout)` first lets
 * the test inject what would arrive during the wait (`duringWait`), then resolves true if the
 * condition holds, else moves the clock by the timeout and resolves false. A wait without a
 * timeout whose condition never holds fails the test instead of hanging it.
 */
export class FakeClock implements WorkflowClock {
  /** The timeouts waited, in order. */
  readonly waits: number[] = [];
  /** Called at each wait with its timeout (undefined: none), before the condition is checked. */
  duringWait: (timeoutMs: number | undefined) => void = () => undefined;

  constructor(public time = Date.UTC(2026, 0, 1)) {}

  readonly now = (): number => this.time;

  condition(test: () => boolean): Promise<void>;
  condition(test: () => boolean, timeoutMs: number): Promise<boolean>;
  async condition(test: () => boolean, timeoutMs?: number): Promise<boolean | void> {
    this.duringWait(timeoutMs);
    if (test()) return true;
    if (timeoutMs === undefined) throw new Error('the workflow would wait forever here: nothing makes its condition true');
    this.waits.push(timeoutMs);
    this.time += timeoutMs;
    return false;
  }
}

/** Records each call of an activity fake by name, with its input. */
export class CallLog {
  readonly calls: Array<{ name: string; input: unknown }> = [];

  names(): string[] {
    return this.calls.map((call) => call.name);
  }

  /** The inputs of every call of `name`. */
  inputs<T = Record<string, unknown>>(name: string): T[] {
    return this.calls.filter((call) => call.name === name).map((call) => call.input as T);
  }

  /** An activity fake that logs its input and answers with `answer(input)`. */
  fn<I, O>(name: string, answer: (input: I) => O | Promise<O>): (input: I) => Promise<O> {
    return async (input: I) => {
      this.calls.push({ name, input });
      return answer(input);
    };
  }
}

/** A CLI request to the built-in `explore` agent with the default config: the run the run's parts are tested on. */
export function exploreRunInput(overrides: Partial<RunInput> = {}): RunInput {
  const profile = resolveProfile({ agent: getAgent(builtinCatalog(), 'explore')!, config: defaultAgentsConfig(), directives: {} });
  return {
    threadId: 't',
    profile,
    system: 's',
    request: 'why?',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'cli' },
    ...overrides,
  };
}
