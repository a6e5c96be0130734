import { patched } from '@temporalio/workflow';
import type { AgentSetup } from '../../activities/agents/agent-setup';
import { buildSystemPrompt, getAgent, resolveProfile, sandboxCheck } from '../../agents';
import { failure, type ShipUnitInput } from '../contracts';
import type { ChosenProfile, UnitSettings } from './unit';

/**
 * The `patched()` id of a unit whose setup fails (its agent setup unreadable, an agent missing
 * from the worker's catalog) settling `failed` with a record, a report and the workspaces
 * released, instead of failing the workflow (docs/versioning.md). Histories recorded before it
 * end in a raw workflow failure right there; the `false` branch goes once none is replayed.
 */
export const UNIT_SETUP_SETTLES = 'unit-setup-failure-settles';

/**
 * The `patched()` id of a unit that settles `failed` at once when its worker cannot isolate
 * shell commands (its coding runs would fail with exit 126). Units recorded before it went on.
 */
export const UNIT_REFUSES_WITHOUT_SANDBOX = 'unit-refuses-without-sandbox';

/** The unit's settings, or the error its setup failed with (thrown into the unit's settle path). */
export type LoadedUnitSettings = { settings: UnitSettings; error?: undefined } | { settings?: undefined; error: Error };

/** Reads the agent setup and resolves the unit's settings; a failure is returned, not thrown (new histories only). */
export async function loadUnitSettings(input: ShipUnitInput, load: () => Promise<AgentSetup>): Promise<LoadedUnitSettings> {
  try {
    const setup = await load();
    const settings = unitSettings(setup, input);
    // A door that could not see the worker's sandbox (a server-only process, the CLI) let the unit start: it refuses itself here.
    const ship = getAgent(setup.catalog, 'ship');
    const refused = ship && sandboxCheck(setup, { person: { surface: input.requester.surface }, agent: 'ship' }, ship);
    if (refused && patched(UNIT_REFUSES_WITHOUT_SANDBOX)) return { error: failure('sandbox_unavailable', refused.message) };
    return { settings };
  } catch (error) {
    // Called only on this path, so histories whose setup succeeded carry no marker.
    if (!patched(UNIT_SETUP_SETTLES)) throw error;
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }
}

/** The unit's coding and review profiles and its budget, resolved from the catalog and config. */
export function unitSettings({ catalog, config, ship, backends, spend }: AgentSetup, input: ShipUnitInput): UnitSettings {
  const profileFor = (agentId: string): ChosenProfile => {
    const agent = getAgent(catalog, agentId);
    if (!agent) throw failure('agent_unknown', `the ${agentId} agent is not in the catalog`);
    // The request's own budget and effort narrow the unit's runs as they narrow a run (a budget only ever lowers).
    const profile = resolveProfile({
      agent,
      config,
      directives: {
        repo: input.repo,
        ...(input.model ? { model: input.model } : {}),
        ...(input.budgetMinutes !== undefined ? { budgetMinutes: input.budgetMinutes } : {}),
        ...(input.effort ? { effort: input.effort } : {}),
      },
      ...(input.channelId ? { channelId: input.channelId } : {}),
      userId: input.requester.id,
      ...(backends ? { tooling: { backends, conversation: input.replyTarget.kind } } : {}),
    });
    return { profile, system: agent.pipeline ? '' : buildSystemPrompt(agent, profile) };
  };
  return {
    ship,
    coding: profileFor('coding'),
    review: profileFor('review'),
    budgetMinutes: profileFor('ship').profile.budget.minutes,
    ...(spend ? { spend } : {}),
  };
}
