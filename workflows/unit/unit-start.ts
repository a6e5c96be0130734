import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { repositoryRefusal } from '../../agents';
import type { StatusActivities } from '../activity-proxies';
import { failure, type ShipUnitInput, type UnitCarry } from '../contracts';
import { PullRequest, Repo, Requester, SwitchboardKind, Thread } from '../search-attributes';
import { settingsNotice } from '../thread/repo-settings';
import { unitBranchName } from './branch';
import type { Unit } from './unit';

/**
 * The `patched()` id of a unit that reads its repository's settings when it starts: the gate its
 * reviews apply, the agents the repository allows (a unit refuses itself when `ship` is not one,
 * whichever door started it), and a broken `.switchboard.yml` said once in its conversation.
 */
export const UNIT_REPO_SETTINGS = 'unit-repo-settings';

/** A new unit's carry: a seeded PR starts at review, a request at coding. */
export function initialCarry(input: ShipUnitInput, now: number): UnitCarry {
  return {
    phase: input.pullRequest ? 'review' : 'coding',
    round: 0,
    branch: unitBranchName(input.unitId),
    work: input.request ? [{ kind: 'request', text: input.request }] : [],
    reviews: 0,
    postedReviews: [],
    runMinutes: 0,
    reminders: 0,
    startedAt: now,
    ...(input.pullRequest ? { pullRequest: input.pullRequest } : {}),
  };
}

/** The search attributes a unit sets when it starts (its phase follows as it enters one). */
export function unitSearchAttributes(input: ShipUnitInput, carry: Pick<UnitCarry, 'pullRequest'>): SearchAttributeUpdatePair[] {
  return [
    { key: SwitchboardKind, value: 'unit' },
    { key: Repo, value: input.repo },
    { key: Requester, value: input.requester.id },
    ...(input.threadId ? [{ key: Thread, value: input.threadId }] : []),
    ...(carry.pullRequest ? [{ key: PullRequest, value: carry.pullRequest }] : []),
  ];
}

/** The reads and the reply the start of a unit makes. */
export interface UnitStartActivities {
  repoSettings(input: { repo: string }): Promise<NonNullable<Unit['repository']>>;
  deliverReply: StatusActivities['deliverReply'];
}

/**
 * Reads the repository's settings into the unit (histories recorded before did not): a broken
 * `.switchboard.yml` is said once in the unit's conversation (not on a seeded PR), and a
 * repository whose `agents.allowed` leaves out `ship` refuses the unit, whichever door started it
 * (the CLI, the API, a plan, the orchestrator). Reads and replies that fail are nothing to settle on.
 */
export async function readRepository(unit: Unit, activities: UnitStartActivities): Promise<void> {
  if (!unit.ports.patched(UNIT_REPO_SETTINGS)) return;
  const { input, repo } = unit;
  unit.repository = await activities.repoSettings({ repo }).catch(() => undefined);
  const notice = settingsNotice(unit.repository);
  if (notice && !unit.carry.pullRequest)
    await activities.deliverReply({ ...notice, replyTarget: input.replyTarget }).catch(() => undefined);
  const agents = unit.repository?.settings.agents;
  const refused = agents && repositoryRefusal({ [repo.toLowerCase()]: agents }, repo, { id: 'ship', displayName: 'Ship' });
  if (refused) throw failure('repo_agent_not_allowed', refused.message);
}
