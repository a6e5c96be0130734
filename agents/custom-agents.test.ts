import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { activeAgents, getAgent, getRole } from './catalog';
import { loadCatalog, loadCustomAgents } from './custom-agents';
import { defaultAgentsConfig } from './config';
import { listedTools } from './definition';
import { resolveRoleProfile } from './delegation';
import { mcpAttachmentsFor } from './mcp';
import { resolveProfile } from './profile';
import { buildSystemPrompt, PARALLEL_BLOCK } from './prompt';

const GOOD = `displayName: Triage
description: Sorts new issues into the right labels and owners.
toolset: general
identity: write
budgetMinutes: 10
tokenCap: 8000
prompt: You triage issues.
featureFlag: triage
surfaces: [slack]
`;

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-agents-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('custom agents', () => {
  it('a broken file is reported with its path and failing field and skipped; the others load', () => {
    const dir = folder({
      'triage.agent.yaml': GOOD,
      'docs-role.agent.yaml':
        'kind: role\ndisplayName: Docs\ndescription: Reads docs in the workspace.\ntoolset: role-explore\nbudgetMinutes: 5\ntokenCap: 4000\nprompt: Read docs.\n',
      'gpu.agent.yaml': GOOD.replace('identity: write', 'machine: gpu'),
      'typo.agent.yaml': `${GOOD}budgetMinutse: 3\n`,
      'noprompt.agent.yaml': GOOD.replace('prompt: You triage issues.\n', ''),
      'badset.agent.yaml': GOOD.replace('toolset: general', 'toolset: everything'),
      'renamed.agent.yaml': `id: other\n${GOOD}`,
      'broken.agent.yaml': 'displayName: [unclosed\n',
      'list.agent.yaml': '- a\n- b\n',
      'explore.agent.yaml': GOOD,
      'notes.yaml': 'ignored: true\n',
    });
    const { catalog, problems } = loadCatalog(dir);
    const byFile = Object.fromEntries(problems.map((p) => [p.source.slice(dir.length + 1), [p.field, p.message]]));
    expect(byFile).toEqual({
      'gpu.agent.yaml': ['machine', expect.stringMatching(/none.*repo-resident.*repo-cold/)],
      'typo.agent.yaml': ['budgetMinutse', 'unknown field'],
      'noprompt.agent.yaml': ['prompt', 'a prompt is required unless the agent is a pipeline'],
      'badset.agent.yaml': ['toolset', expect.stringMatching(/a toolset name \(general, coding/)],
      'renamed.agent.yaml': ['id', '"other" does not match the file name (renamed.agent.yaml)'],
      'broken.agent.yaml': ['(file)', expect.stringMatching(/^not valid YAML/)],
      'list.agent.yaml': ['(file)', 'expected a mapping of definition fields'],
      'explore.agent.yaml': ['id', '"explore" is already an agent or role; custom ids must be new'],
    });
    expect(getAgent(catalog, 'triage')).toMatchObject({
      id: 'triage',
      toolset: 'general',
      machine: 'none',
      routable: false,
      featureFlag: 'triage',
    });
    expect(getRole(catalog, 'docs-role')).toMatchObject({ kind: 'role', toolset: 'role-explore' });
    expect(getAgent(catalog, 'explore')!.displayName).toBe('Explore');
    expect(catalog.agents).toHaveLength(11);
  });

  it('catalog is not availability: the feature flag and the surface filter the active set', () => {
    const { catalog } = loadCatalog(folder({ 'triage.agent.yaml': GOOD }));
    const ids = (flags: Record<string, boolean>, surface: 'slack' | 'github') =>
      activeAgents(catalog, { featureFlags: flags, surface }).map((a) => a.id);
    expect(ids({}, 'slack')).not.toContain('triage');
    expect(ids({ triage: true }, 'slack')).toContain('triage');
    expect(ids({ triage: true }, 'github')).not.toContain('triage');
    expect(ids({}, 'slack')).not.toContain('orchestrator');
  });

  it('a missing folder is a problem, not a crash; no folder means built-ins only', () => {
    expect(loadCustomAgents('/nonexistent/agents.d')).toEqual({
      definitions: [],
      problems: [{ source: '/nonexistent/agents.d', field: 'customAgentsDir', message: 'folder does not exist' }],
    });
    expect(loadCatalog().catalog.agents).toHaveLength(10);
  });

  it("lists its own tools (built-in names and an MCP server's tools) and chooses its prompt parts", () => {
    const dir = folder({
      'triager.agent.yaml': [
        'displayName: Triager',
        'description: Reads issues and the tracker, and says who should own each.',
        'tools: [github_issue_list, github_issue_get, update_status, mcp__tracker__search, "mcp__docs__*"]',
        'budgetMinutes: 10',
        'tokenCap: 8000',
        'prompt: You triage issues by reading them and the tracker.',
        'promptParts: { about: false, configuration: false, parallel: true }',
        'routable: true',
      ].join('\n'),
      'checker.agent.yaml':
        'kind: role\ndisplayName: Checker\ndescription: Runs the linter once.\ntools: [bash, read_file, write_file]\nbudgetMinutes: 5\ntokenCap: 4000\nprompt: Run the linter.\n',
      'both.agent.yaml': GOOD.replace('toolset: general', 'toolset: general\ntools: [bash]'),
      'unknown-tool.agent.yaml': GOOD.replace('toolset: general', 'tools: [teleport]'),
      'agent-parent.agent.yaml': `${GOOD}promptParts: { parentInstructions: true }\n`,
    });
    const { catalog, problems } = loadCatalog(dir);
    const byFile = Object.fromEntries(problems.map((p) => [p.source.slice(dir.length + 1), [p.field, p.message]]));
    expect(byFile).toEqual({
      'both.agent.yaml': ['toolset', 'give exactly one of toolset and tools'],
      'unknown-tool.agent.yaml': ['tools.0', expect.stringMatching(/a built-in tool name/)],
      'agent-parent.agent.yaml': ['promptParts.parentInstructions', 'only a role has a parent'],
    });
    const triager = getAgent(catalog, 'triager')!;
    expect(listedTools(triager)).toEqual(['github_issue_list', 'github_issue_get', 'update_status']);
    expect(mcpAttachmentsFor(triager, undefined)).toEqual([{ server: 'docs' }, { server: 'tracker', tools: ['search'] }]);
    const profile = resolveProfile({ agent: triager, config: defaultAgentsConfig(), directives: {} });
    expect(profile).toMatchObject({ toolset: 'custom', tools: ['github_issue_list', 'github_issue_get', 'update_status'] });
    const system = buildSystemPrompt(triager, profile);
    expect(system).toContain('You triage issues by reading them and the tracker.');
    expect(system).toContain('- github_issue_get:');
    expect(system).toContain(PARALLEL_BLOCK);
    expect(system).not.toContain('## Your configuration');
    expect(system).not.toContain('## About Switchboard');
    // A custom role's own list is intersected with its parent's tools, like a toolset.
    const parent = resolveProfile({ agent: getAgent(catalog, 'review')!, config: defaultAgentsConfig(), directives: {} });
    expect(resolveRoleProfile({ role: getRole(catalog, 'checker')!, parent }).tools).toEqual(['bash', 'read_file']);
  });
});
