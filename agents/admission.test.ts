import { AdmissionConfigSchema, type AdmissionConfigInput } from '../infra/config/admission-section';
import {
  admitControl,
  admitStart,
  namesRefusal,
  START_CHECKS,
  unitToolsRefusal,
  type AdmissionFacts,
  type Person,
  type StartCheck,
} from './admission';
import { builtinCatalog, getAgent } from './catalog';
import { defaultAgentsConfig, type AgentsConfigInput } from './config';
import { githubRequirement, lowestGitHubRequirement, roleFromGitHub } from './github-roles';
import { REFUSAL_CODES, REFUSALS, refusalKind } from '../workflows/contracts/refusals';

const facts = (
  agents: AgentsConfigInput = {},
  admission: AdmissionConfigInput = {},
  extra: Partial<AdmissionFacts> = {},
): AdmissionFacts => ({
  catalog: builtinCatalog(),
  config: defaultAgentsConfig(agents),
  admission: AdmissionConfigSchema.parse(admission),
  ...extra,
});
const slack = (userId: string, channelId = 'C1'): Person => ({ surface: 'slack', userId, channelId });
const gh = (login: string, githubRole?: Person['githubRole']): Person => ({
  surface: 'github',
  userId: `github:${login}`,
  ...(githubRole ? { githubRole } : {}),
});
const agent = (id: string) => getAgent(builtinCatalog(), id)!;
const onPr = { kind: 'github' as const, repo: 'acme/app' };

describe('the names a request gives (refused at the door)', () => {
  it('refuses an agent no catalog entry has and a model no provider serves, and passes known names whoever may use them', () => {
    expect(namesRefusal(facts(), { agent: 'wizard' })).toMatchObject({ ok: false, code: 'agent_unknown', rule: 'catalog' });
    expect(namesRefusal(facts(), { agent: 'wizard' })?.message).toContain('general');
    for (const model of ['nope:x', 'anthropic:', 'gemini-pro', 'scripted'])
      expect({ model, refused: namesRefusal(facts(), { model }) }).toMatchObject({ model, refused: { code: 'model_unknown' } });
    expect(namesRefusal(facts(), { model: 'scripted:/etc/passwd' })).toMatchObject({
      code: 'model_not_allowed',
      rule: 'models.scriptedDirs',
    });
    // Known names pass here (who may use them is the thread's decision): any provider's model, any agent.
    for (const model of ['anthropic:claude-opus-4-1', 'claude-sonnet-4-6', 'openai:gpt-5', 'scripted:examples/hello.yaml'])
      expect({ model, refused: namesRefusal(facts(), { model }) }).toEqual({ model, refused: undefined });
    expect(namesRefusal(facts({ restrict: { agents: { coding: ['U1'] } } }), { agent: 'coding' })).toBeUndefined();
    expect(namesRefusal(facts(), {})).toBeUndefined();
  });
});

describe('the start decision', () => {
  it('answers access first, with the rule and what the person may use instead', () => {
    const refused = admitStart(facts({ restrict: { agents: { coding: ['U1'] } } }), { person: slack('U2'), agent: 'coding', text: 'x' });
    expect(refused).toMatchObject({ ok: false, code: 'agent_restricted', rule: 'restrict.agents.coding' });
    expect(refused.ok || refused.alternatives).toContain('general');
    expect(admitStart(facts(), { person: slack('U2'), agent: 'coding', text: 'x' })).toMatchObject({ ok: true });
  });

  it('needs write on the repository for a GitHub actor by default, whatever the agent, and refuses an unknown role', () => {
    for (const id of ['general', 'review', 'coding', 'ship']) {
      expect(admitStart(facts(), { person: gh('mallory', 'read'), agent: id, text: 'x', conversation: onPr })).toMatchObject({
        ok: false,
        code: 'actor_permission',
        rule: 'admission.github.permission',
      });
      expect(admitStart(facts(), { person: gh('ana', 'write'), agent: id, text: 'x', conversation: onPr })).toMatchObject({ ok: true });
    }
    expect(admitStart(facts(), { person: gh('ana'), agent: 'general', text: 'x', conversation: onPr })).toMatchObject({
      code: 'actor_unverified',
    });
    // A replayed history decided without the rule.
    const replayed = { person: gh('ana'), agent: 'general', text: 'x', conversation: onPr, skip: ['github_actor'] as const };
    expect(admitStart(facts(), replayed)).toMatchObject({ ok: true });
  });

  it('lets configuration lower a GitHub requirement per agent and repository, never below write for an agent that pushes', () => {
    const settings = AdmissionConfigSchema.parse({
      github: {
        agents: { review: 'triage', general: 'triage', coding: 'triage' },
        repos: { 'Acme/App': { agents: { review: 'maintain' } } },
      },
    });
    expect(githubRequirement(settings, 'acme/other', agent('review'))).toEqual({ role: 'triage', rule: 'admission.github.agents.review' });
    expect(githubRequirement(settings, 'acme/app', agent('review'))).toEqual({
      role: 'maintain',
      rule: 'admission.github.repos.Acme/App.agents.review',
    });
    expect(githubRequirement(settings, 'acme/app', agent('coding')).role).toBe('write');
    expect(githubRequirement(settings, 'acme/app', agent('ship')).role).toBe('write');
    expect(lowestGitHubRequirement(settings, 'acme/other', builtinCatalog().agents).role).toBe('triage');
    expect(lowestGitHubRequirement(undefined, 'acme/other', builtinCatalog().agents).role).toBe('write');
    const triaged = facts({}, { github: { agents: { general: 'triage' } } });
    expect(admitStart(triaged, { person: gh('tia', 'triage'), agent: 'general', text: 'x', conversation: onPr })).toMatchObject({
      ok: true,
    });
    expect(admitStart(triaged, { person: gh('tia', 'triage'), agent: 'coding', text: 'x', conversation: onPr })).toMatchObject({
      code: 'actor_permission',
    });
  });

  it('refuses a config that would admit plain readers, naming the key', () => {
    const parsed = AdmissionConfigSchema.safeParse({ github: { agents: { general: 'read' } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0].path).toEqual(['github', 'agents', 'general']);
  });

  it('refuses work on another repository than the GitHub conversation it was asked in', () => {
    const refused = admitStart(facts(), {
      person: gh('ana', 'admin'),
      agent: 'general',
      text: 'x',
      repo: 'other/repo',
      conversation: onPr,
    });
    expect(refused).toMatchObject({ ok: false, code: 'actor_permission' });
  });

  it('then the model, the request text, the sandbox and a pull request, in that order', () => {
    const noSandbox = facts({}, {}, { sandbox: { ready: false, reason: 'bwrap is not installed', fix: 'install it' } });
    expect(admitStart(noSandbox, { person: slack('U1'), agent: 'explore', model: 'anthropic:claude-opus-4-1', text: '' })).toMatchObject({
      code: 'model_not_allowed',
    });
    expect(admitStart(noSandbox, { person: slack('U1'), agent: 'explore', text: '' })).toMatchObject({ code: 'request_missing' });
    expect(admitStart(noSandbox, { person: slack('U1'), agent: 'explore', text: 'x' })).toMatchObject({ code: 'sandbox_unavailable' });
    expect(admitStart(noSandbox, { person: slack('U1'), agent: 'general', text: 'x' })).toMatchObject({ ok: true });
    const onIssue = { ...onPr, issue: true };
    expect(admitStart(facts(), { person: gh('ana', 'write'), agent: 'review', text: 'look', conversation: onIssue })).toMatchObject({
      code: 'needs_pull_request',
    });
    expect(admitStart(facts(), { person: gh('ana', 'write'), agent: 'review', text: 'look at #12', conversation: onIssue })).toMatchObject({
      ok: true,
    });
  });

  it('takes one more rule as one more check (a spend cap, say), at every door alike', () => {
    const capped: StartCheck = (_facts, request) =>
      request.person.userId === 'U9' ? { code: 'settings_missing', rule: 'caps', message: 'Over the cap.' } : undefined;
    expect(admitStart(facts(), { person: slack('U9'), agent: 'general', text: 'x' }, [capped])).toMatchObject({ code: 'settings_missing' });
    expect(START_CHECKS.length).toBeGreaterThan(0);
  });
});

describe('steer, stop and read', () => {
  const run = { kind: 'run' as const, id: 'run:thread:slack:T:C1:1.0:1', requester: 'U1', agent: 'coding', repo: 'acme/app' };

  it('lets the requester steer and stop their run, and nobody else in Slack, operators aside for stop', () => {
    expect(admitControl(facts(), slack('U1'), run, 'steer')).toMatchObject({ ok: true, as: 'requester' });
    expect(admitControl(facts(), slack('U2'), run, 'steer')).toMatchObject({ ok: false, code: 'not_requester' });
    expect(admitControl(facts(), slack('U2'), run, 'stop')).toMatchObject({
      ok: false,
      code: 'not_requester',
      rule: 'admission.operators',
    });
    const ops = facts({}, { operators: ['U2'] });
    expect(admitControl(ops, slack('U2'), run, 'stop')).toMatchObject({ ok: true, as: 'operator' });
    expect(admitControl(facts(), { surface: 'cli', userId: 'root' }, run, 'stop')).toMatchObject({ ok: true, as: 'operator' });
    expect(admitControl(facts(), { surface: 'http', userId: 'bob', operator: true }, run, 'read')).toMatchObject({ ok: true });
  });

  it('refuses a steer from a person refused the run’s agent, even its requester', () => {
    const refused = admitControl(facts({ restrict: { agents: { coding: ['U9'] } } }), slack('U1'), run, 'steer');
    expect(refused).toMatchObject({ ok: false, code: 'agent_restricted' });
    expect(refused.ok || refused.message).toMatch(/^You may not steer this coding run: /);
  });

  it('makes a GitHub collaborator admitted for the agent an owner of the PR conversation, who may steer and stop its work', () => {
    const unit = { kind: 'unit' as const, id: 'unit:acme/app#3', requester: 'github:ana', agent: 'ship', repo: 'acme/app' };
    expect(admitControl(facts(), gh('bob', 'write'), unit, 'steer')).toMatchObject({ ok: true, as: 'owner' });
    expect(admitControl(facts(), gh('tia', 'triage'), unit, 'steer')).toMatchObject({ ok: false, code: 'not_requester' });
    // Unassigning the issue, removing its label or `@switchboard stop` from a collaborator stops the unit.
    expect(admitControl(facts(), gh('bob', 'write'), unit, 'stop')).toMatchObject({ ok: true, as: 'owner' });
    const refused = admitControl(facts(), gh('tia', 'triage'), unit, 'stop');
    expect(refused).toMatchObject({ ok: false, code: 'not_requester' });
    expect(refused.ok || refused.message).toContain('a collaborator whose role on acme/app admits them to ship');
    expect(admitControl(facts(), gh('bob', 'write'), unit, 'read')).toMatchObject({ ok: false });
    // Outside GitHub, a stop stays the requester's or an operator's.
    expect(admitControl(facts(), slack('U7'), unit, 'stop')).toMatchObject({ ok: false, rule: 'admission.operators' });
  });

  it('refuses an agent the repository leaves out of its agents.allowed, whoever asks and from wherever', () => {
    const limited = { ...facts(), repositories: { 'acme/app': { allowed: ['review'], rule: '.switchboard.yml agents.allowed' } } };
    const refused = admitStart(limited, { person: slack('U1'), agent: 'general', text: 'x', repo: 'Acme/App' });
    expect(refused).toMatchObject({ ok: false, code: 'repo_agent_not_allowed', rule: '.switchboard.yml agents.allowed' });
    expect(refused.ok || refused.message).toBe(
      'Acme/App allows only review to run on it (.switchboard.yml agents.allowed), and not General, so nothing was run.',
    );
    expect(
      admitStart(limited, { person: gh('ana', 'write'), agent: 'review', text: 'x', conversation: { kind: 'github', repo: 'acme/app' } }),
    ).toMatchObject({
      ok: true,
    });
    expect(admitStart(limited, { person: slack('U1'), agent: 'general', text: 'x', repo: 'acme/other' })).toMatchObject({ ok: true });
  });

  it("adds a repository's MCP attachments to the agent's, admitted as the deployment's own are", () => {
    const mcp = {
      servers: { tracker: { transport: 'http' as const }, files: { transport: 'stdio' as const, people: ['U1'] } },
      agents: {},
    };
    const withRepo = facts(
      {},
      {},
      {
        mcp,
        repositoryMcp: { 'acme/app': { review: [{ server: 'tracker', tools: ['get_*'] }, { server: 'files' }, { server: 'gone' }] } },
      },
    );
    const admitted = admitStart(withRepo, {
      person: gh('ana', 'write'),
      agent: 'review',
      text: 'x',
      conversation: { kind: 'github', repo: 'Acme/App' },
    });
    expect(admitted.ok && admitted.mcp).toEqual({
      servers: [{ server: 'tracker', transport: 'http', tools: ['get_*'] }],
      off: [
        expect.objectContaining({ server: 'files', code: 'mcp_server_restricted' }),
        expect.objectContaining({ server: 'gone', why: 'not configured in this deployment' }),
      ],
    });
    // Another repository, another agent, or a deployment without MCP servers: none of them.
    const elsewhere = admitStart(withRepo, { person: slack('U1'), agent: 'review', text: 'x', repo: 'acme/other' });
    expect(elsewhere.ok && elsewhere.mcp).toEqual({ servers: [], off: [] });
    const general = admitStart(withRepo, { person: slack('U1'), agent: 'general', text: 'x', repo: 'acme/app' });
    expect(general.ok && general.mcp).toEqual({ servers: [], off: [] });
    const none = admitStart({ ...withRepo, mcp: undefined }, { person: slack('U1'), agent: 'review', text: 'x', repo: 'acme/app' });
    expect(none).toEqual({ ok: true, agent: expect.objectContaining({ id: 'review' }) });
  });

  it("puts the orchestrator's unit tools in the person's private DM or the CLI only", () => {
    expect(unitToolsRefusal(slack('U1', 'D1'), { kind: 'slack', privateDm: true })).toBeUndefined();
    expect(unitToolsRefusal({ surface: 'cli', userId: 'ops' }, { kind: 'cli' })).toBeUndefined();
    expect(unitToolsRefusal(slack('U1'), { kind: 'slack' })).toMatchObject({ code: 'unit_tools_private' });
    expect(unitToolsRefusal({ surface: 'http', userId: 'ada' }, { kind: 'api' })).toMatchObject({ code: 'unit_tools_private' });
  });
});

describe('the refusal codes', () => {
  it('are one list, each with its kind and one line', () => {
    for (const code of REFUSAL_CODES) expect(REFUSALS[code].means).toMatch(/^[A-Z].*\.$/);
    expect(refusalKind('actor_permission')).toBe('access');
    expect(refusalKind('sandbox_unavailable')).toBe('unavailable');
    expect(refusalKind('something_else')).toBe('request');
  });

  it("read GitHub's role: the built-in role name, else the base permission a custom role maps to", () => {
    expect(roleFromGitHub({ permission: 'write', role_name: 'maintain' })).toBe('maintain');
    expect(roleFromGitHub({ permission: 'read', role_name: 'security-reviewer' })).toBe('read');
    expect(roleFromGitHub({ permission: 'none', role_name: 'none' })).toBe('none');
    expect(roleFromGitHub({})).toBe('none');
  });
});
