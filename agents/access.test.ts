import { authorize, type Requester, usableAgents } from './access';
import { builtinCatalog } from './catalog';
import { defaultAgentsConfig } from './config';

const catalog = builtinCatalog();
const config = defaultAgentsConfig({
  restrict: { agents: { coding: ['UDEV'] } },
  grants: { people: { UNARROW: { agents: ['general', 'research'] } } },
  channels: { CREAD: { allowedAgents: ['general', 'research', 'explore'] } },
  featureFlags: { orchestrator: false },
});
const slack = (userId: string, channelId?: string): Requester => ({ surface: 'slack', userId, channelId });

describe('authorize', () => {
  const refusals: Array<[string, Requester, string, string, RegExp]> = [
    [
      'nope',
      slack('U1'),
      'agent_unknown',
      'catalog',
      /There is no agent called "nope"\. You may use: general, review, ship, research, explore, conductor, code-review\./,
    ],
    ['orchestrator', slack('U1'), 'agent_feature_off', 'featureFlags.orchestrator', /switched off here/],
    ['coding', slack('U1'), 'agent_restricted', 'restrict.agents.coding', /limited to named people .* You may use: general, review/],
    ['coding', { surface: 'http' }, 'agent_restricted', 'restrict.agents.coding', /not one of them/],
    [
      'ship',
      slack('U1', 'CREAD'),
      'channel_grant',
      'channels.CREAD.allowedAgents',
      /This channel does not allow the ship agent.* You may use: general, research, explore\./,
    ],
    [
      'explore',
      slack('UNARROW'),
      'person_grant',
      'grants.people.UNARROW.agents',
      /Your access does not include the explore agent.* You may use: general, research\./,
    ],
    [
      'explore',
      { surface: 'mcp', userId: 'U1', selfServe: true },
      'self_serve_shell',
      'self-serve MCP never reaches an agent with a shell',
      /holds a shell/,
    ],
    [
      'review',
      { surface: 'mcp', userId: 'U1', selfServe: true },
      'self_serve_shell',
      'self-serve MCP never reaches an agent with a shell',
      /You may use: general, research, conductor\./,
    ],
    [
      'ship',
      { surface: 'mcp', userId: 'U1', selfServe: true },
      'self_serve_shell',
      'self-serve MCP never reaches an agent with a shell',
      /holds a shell/,
    ],
  ];
  it.each(refusals)('%s for %j is refused by %s (%s)', (agentId, requester, code, rule, message) => {
    const result = authorize(catalog, config, requester, agentId);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe(code);
    expect(result.rule).toBe(rule);
    expect(result.message).toMatch(message);
    expect(result.alternatives).not.toContain(agentId);
  });

  const allowed: Array<[string, Requester]> = [
    ['coding', slack('UDEV')],
    ['explore', slack('U1')],
    ['explore', slack('U1', 'CREAD')],
    ['general', { surface: 'mcp', userId: 'U1', selfServe: true }],
    ['explore', { surface: 'mcp', userId: 'U1' }],
    ['research', slack('UNARROW')],
  ];
  it.each(allowed)('%s for %j is allowed', (agentId, requester) => {
    expect(authorize(catalog, config, requester, agentId)).toMatchObject({ ok: true, agent: { id: agentId } });
  });

  it('surface filter: orchestrator serves slack and cli only; self-serve flag excludes non-shell agents too', () => {
    const on = defaultAgentsConfig({ featureFlags: { orchestrator: true } });
    expect(authorize(catalog, on, slack('U1'), 'orchestrator').ok).toBe(true);
    expect(authorize(catalog, on, { surface: 'github' }, 'orchestrator')).toMatchObject({
      ok: false,
      code: 'agent_surface_excluded',
      rule: 'orchestrator.surfaces',
    });
    expect(authorize(catalog, on, { surface: 'mcp', selfServe: true }, 'orchestrator')).toMatchObject({
      ok: false,
      code: 'agent_surface_excluded',
    });
    const mcpOrchestrator = {
      ...catalog,
      agents: catalog.agents.map((a) => (a.id === 'orchestrator' ? { ...a, surfaces: ['mcp' as const] } : a)),
    };
    expect(authorize(mcpOrchestrator, on, { surface: 'mcp', selfServe: true }, 'orchestrator')).toMatchObject({
      ok: false,
      code: 'self_serve_excluded',
      rule: 'orchestrator.selfServe',
    });
  });

  it("an API token's own grant narrows further, and a self-serve token is held to the rule on the HTTP surface too", () => {
    const grant = { agents: ['general', 'explore'], rule: 'api.tokens.ci.agents' };
    expect(authorize(catalog, config, { surface: 'http', userId: 'U1', grant }, 'explore').ok).toBe(true);
    expect(authorize(catalog, config, { surface: 'http', userId: 'U1', grant }, 'research')).toMatchObject({
      ok: false,
      code: 'token_grant',
      rule: 'api.tokens.ci.agents',
      message: expect.stringMatching(
        /^Your API token does not include the research agent \(api\.tokens\.ci\.agents\)\. You may use: general, explore\./,
      ),
    });
    // A grant never widens: the person's own narrowing still applies.
    expect(usableAgents(catalog, config, { surface: 'http', userId: 'UNARROW', grant })).toEqual(['general']);
    expect(authorize(catalog, config, { surface: 'http', userId: 'U1', selfServe: true }, 'explore')).toMatchObject({
      ok: false,
      code: 'self_serve_shell',
    });
  });

  it('usableAgents lists what a person may run here', () => {
    expect(usableAgents(catalog, config, slack('UDEV'))).toEqual([
      'general',
      'coding',
      'review',
      'ship',
      'research',
      'explore',
      'conductor',
      'code-review',
    ]);
    expect(usableAgents(catalog, config, slack('UNARROW', 'CREAD'))).toEqual(['general', 'research']);
  });
});
