import { DEFAULT_SHIP_SETTINGS, type AgentSetup } from '../../activities/agents/agent-setup';
import { builtinCatalog } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { PlanInput } from '../contracts';
import { planRefusal } from './plan-admission';

const input: PlanInput = {
  planId: 'plan:acme/app:notes',
  repo: 'acme/app',
  replyTarget: { kind: 'slack', team: 'T1', channel: 'C1', threadTs: '100.000001' },
  requester: { id: 'U1', surface: 'slack' },
  units: [{ key: 'api', request: 'Add the API' }],
};

describe("a plan's admission", () => {
  const setup = (agents = {}): AgentSetup => ({
    catalog: builtinCatalog(),
    config: defaultAgentsConfig(agents),
    ship: DEFAULT_SHIP_SETTINGS,
  });

  it('admits its requester for ship, or says why not with the rule', () => {
    expect(planRefusal(setup(), input)).toBeUndefined();
    const refused = planRefusal(setup({ restrict: { agents: { ship: ['U9'] } } }), input);
    expect(refused).toMatchObject({ ok: false, code: 'agent_restricted', rule: 'restrict.agents.ship' });
  });
});
