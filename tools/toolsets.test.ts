import { TOOLS } from './registry';
import { holdsShell, publishes, TOOLSET_NAMES, TOOLSET_PURPOSES, TOOLSETS, toolsetAllows, toolsetTools } from './toolsets';

const GITHUB_READS = [
  'github_repos',
  'github_tree',
  'github_file',
  'github_search_code',
  'github_issue_list',
  'github_issue_get',
  'github_pull_get',
];
const AGENT_TOOLSETS = TOOLSET_NAMES.filter((name) => !name.startsWith('role-'));

describe('toolsets', () => {
  it('name only known tools, once each, and every set has a purpose', () => {
    for (const name of TOOLSET_NAMES) {
      const tools = TOOLSETS[name] as readonly string[];
      for (const tool of tools) expect(Object.keys(TOOLS)).toContain(tool);
      expect(new Set(tools).size).toBe(tools.length);
      expect(TOOLSET_PURPOSES[name].length).toBeGreaterThan(10);
    }
  });

  it('explore: the shell, the reads, the web and the wait, and nothing that writes outside the sandbox', () => {
    expect([...TOOLSETS.explore].sort()).toEqual(
      ['bash', 'read_file', 'update_status', 'web_fetch', 'web_search', 'list_skills', 'use_skill', ...GITHUB_READS, 'wait_for_job'].sort(),
    );
    const explore = toolsetTools('explore');
    for (const absent of [
      'write_file',
      'submit_review',
      'submit_description',
      'attach_file',
      'github_issue_create',
      'github_issue_comment',
      'github_issue_update',
      'task',
    ]) {
      expect(explore).not.toContain(absent);
    }
    expect(explore.filter((tool) => tool.startsWith('submit_'))).toEqual([]);
    expect(publishes(explore)).toBe(false);
  });

  it('web_search is held by the research and explore toolsets and no other agent toolset', () => {
    expect(AGENT_TOOLSETS.filter((name) => toolsetTools(name).includes('web_search')).sort()).toEqual(['explore', 'research']);
  });

  it('the GitHub reads are in every toolset with a tool loop', () => {
    // The pipeline holds none, and rem-agent's loop is the board alone: it reads the work it is given, nothing else.
    for (const name of AGENT_TOOLSETS.filter((set) => set !== 'pipeline' && set !== 'rem')) {
      for (const read of GITHUB_READS) expect([name, toolsetTools(name)]).toEqual([name, expect.arrayContaining([read])]);
    }
  });

  it.each([
    ['general', false, true],
    ['coding', true, true],
    ['review', true, true],
    ['pipeline', false, false],
    ['research', false, false],
    ['explore', true, false],
    ['orchestrator', false, true],
    ['conductor', false, false],
    ['code-review', true, false],
    // The board is read into every later run and shown to people: context_board publishes.
    ['rem', false, true],
  ] as const)('%s: shell %s, publishes %s', (name, shell, publishing) => {
    expect(holdsShell(toolsetTools(name))).toBe(shell);
    expect(publishes(toolsetTools(name))).toBe(publishing);
  });

  it.each([
    ['issue writes only in general', ['github_issue_create', 'github_issue_comment', 'github_issue_update'], ['general']],
    ['write_file only in coding', ['write_file'], ['coding']],
    ['submit_review only in review', ['submit_review'], ['review']],
    ['submit_description only in coding', ['submit_description'], ['coding']],
    ['attach_file only where there is a workspace file to post: coding', ['attach_file'], ['coding']],
    ['unit tools only in orchestrator', ['unit_start', 'unit_inspect', 'unit_steer', 'unit_stop', 'fleet_status'], ['orchestrator']],
    ['task only in coding and conductor', ['task'], ['coding', 'conductor']],
  ])('%s', (_label, tools, holders) => {
    for (const tool of tools) {
      expect(AGENT_TOOLSETS.filter((name) => toolsetTools(name).includes(tool as never)).sort()).toEqual(holders);
    }
  });

  it('orchestrator and conductor hold no shell; the pipeline holds nothing', () => {
    expect(toolsetTools('orchestrator')).not.toContain('bash');
    expect(toolsetTools('conductor')).not.toContain('bash');
    expect(toolsetTools('pipeline')).toEqual([]);
    expect(toolsetTools('no-such-set')).toEqual([]);
  });

  it('toolsetAllows is exact membership', () => {
    expect(toolsetAllows(toolsetTools('explore'), 'bash')).toBe(true);
    expect(toolsetAllows(toolsetTools('explore'), 'write_file')).toBe(false);
  });
});
