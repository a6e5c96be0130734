import { ALL_BACKENDS, availableTools, toolOffReason, type ToolBackends } from './availability';
import { toolsetTools } from './toolsets';

const NOTHING: ToolBackends = {
  webSearch: { on: false, why: 'no search provider is configured (web.search.provider)' },
  webFetch: false,
  skillFolders: false,
  github: false,
  slack: false,
};

describe('tool availability', () => {
  it('keeps everything when every backend is there and the run can post', () => {
    const coding = toolsetTools('coding');
    expect(availableTools(coding, ALL_BACKENDS, { machine: 'repo-resident', conversation: 'slack' })).toEqual({
      tools: [...coding],
      off: [],
    });
  });

  it('takes out each tool whose backend is missing, with why', () => {
    const { tools, off } = availableTools(toolsetTools('research'), NOTHING, { machine: 'none', conversation: 'slack' });
    expect(tools).toEqual(['update_status']);
    expect(off).toEqual(
      expect.arrayContaining([
        { tool: 'web_search', why: 'no search provider is configured (web.search.provider)' },
        { tool: 'web_fetch', why: 'web fetch is turned off (web.fetch.enabled is false)' },
        { tool: 'list_skills', why: 'no skill folders are configured (skills.dirs) and this run has no repository checkout' },
        { tool: 'github_repos', why: 'no GitHub credential is configured (GitHub App or GITHUB_READ_TOKEN)' },
      ]),
    );
  });

  it('keeps skills for a run with a checkout even without configured folders', () => {
    expect(toolOffReason('use_skill', NOTHING, { machine: 'repo-cold', conversation: 'cli' })).toBeUndefined();
  });

  it.each([
    [{ machine: 'none', conversation: 'slack' }, ALL_BACKENDS, 'this run has no workspace to attach a file from'],
    [{ machine: 'repo-resident', conversation: 'slack' }, NOTHING, 'Slack is not configured (SLACK_BOT_TOKEN), so a file cannot be posted'],
    [{ machine: 'repo-resident', conversation: 'github' }, NOTHING, 'no GitHub credential is configured, so a file cannot be posted'],
    [{ machine: 'repo-resident', conversation: 'cli' }, ALL_BACKENDS, expect.stringContaining('(cli) has no thread to post a file to')],
    [{ machine: 'repo-resident', conversation: 'github' }, { ...NOTHING, github: true }, undefined],
  ] as const)('attach_file in %j', (context, backends, why) => {
    expect(toolOffReason('attach_file', backends, context)).toEqual(why);
  });
});
