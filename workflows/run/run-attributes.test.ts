import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { RunInput } from '../contracts';
import { finishedAttributes, runningAttributes } from './run-attributes';

function input(repo?: string): RunInput {
  const profile = resolveProfile({ agent: getAgent(builtinCatalog(), 'explore')!, config: defaultAgentsConfig(), directives: {} });
  return {
    threadId: 'thread:cli:1',
    profile: { ...profile, ...(repo ? { repo: { value: repo, boundedBy: 'directive' } as never } : {}) },
    system: 's',
    request: 'why?',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'cli' },
  };
}

const pairs = (list: ReturnType<typeof runningAttributes>) => list.map(({ key, value }) => [key.name, value]);

describe("a run's search attributes", () => {
  it('say what the run is when it starts, with its repository when it has one', () => {
    expect(pairs(runningAttributes(input()))).toEqual([
      ['SwitchboardKind', 'run'],
      ['Agent', 'explore'],
      ['Thread', 'thread:cli:1'],
      ['Requester', 'ada'],
      ['Phase', 'running'],
    ]);
    expect(pairs(runningAttributes(input('acme/app')))).toContainEqual(['Repo', 'acme/app']);
  });

  it('say how it ended, failed when no outcome was set', () => {
    expect(pairs(finishedAttributes({ outcome: 'stopped' }))).toEqual([
      ['Phase', 'finished'],
      ['Outcome', 'stopped'],
    ]);
    expect(pairs(finishedAttributes({}))).toContainEqual(['Outcome', 'failed']);
  });
});
