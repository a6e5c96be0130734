import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { RunInput } from '../contracts';
import { Agent, Outcome, Phase, Repo, Requester, SwitchboardKind, Thread } from '../search-attributes';
import type { RunState } from './run-state';

/** What a run is, set when it starts, so the Web UI and `switchboard` can find it (`SwitchboardKind="run" AND Agent="explore"`). */
export function runningAttributes(input: RunInput): SearchAttributeUpdatePair[] {
  const { profile } = input;
  return [
    { key: SwitchboardKind, value: 'run' },
    { key: Agent, value: profile.agent },
    { key: Thread, value: input.threadId },
    { key: Requester, value: input.requester.id },
    { key: Phase, value: 'running' },
    ...(profile.repo ? [{ key: Repo, value: profile.repo.value }] : []),
  ];
}

/** How the run ended, set last. */
export function finishedAttributes(state: Pick<RunState, 'outcome'>): SearchAttributeUpdatePair[] {
  return [
    { key: Phase, value: 'finished' },
    { key: Outcome, value: state.outcome ?? 'failed' },
  ];
}
