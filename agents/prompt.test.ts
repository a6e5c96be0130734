import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinCatalog, getAgent } from './catalog';
import { defaultAgentsConfig } from './config';
import { parseDirectives } from './directives';
import { resolveProfile } from './profile';
import { buildSystemPrompt, renderConfigBlock } from './prompt';

const catalog = builtinCatalog();
const config = defaultAgentsConfig({ defaults: { model: 'model-default' }, channels: { C45: { budgetMinutes: 45 } } });

function build(message: string, channelId?: string) {
  const { directives, ignored } = parseDirectives(message);
  const agent = getAgent(catalog, directives.agent!)!;
  const profile = resolveProfile({ agent, config, channelId, directives, ignoredDirectives: ignored });
  return { agent, profile };
}

describe('system prompt', () => {
  it('is the agent prompt, its tools, the config block and the About block', () => {
    const { agent, profile } = build('agent:explore budget:30 in acme/api: go');
    const prompt = buildSystemPrompt(agent, profile);
    expect(prompt.startsWith(agent.prompt!)).toBe(true);
    expect(prompt).toContain('You hold exactly 15 tools; nothing else exists for this run.');
    expect(prompt).toContain('- agent: explore (Explore)');
    expect(prompt).toContain('- model: model-default (from config default)');
    expect(prompt).toContain('- effort: medium (from config default)');
    expect(prompt).toContain('- budget: 30 min (budget directive; preset asks 120)');
    expect(prompt).toContain('- turn guard: 180 model turns; token cap: 64000 output tokens per call; prompt cache: up to 1h');
    expect(prompt).toContain('credential: read-scoped');
    expect(prompt).toContain('- repository: acme/api (from a directive in the message)');
    expect(prompt).toContain('## About Switchboard and this run');
    expect(prompt).not.toContain('nohup');
  });

  it.each([
    ['agent:explore budget:200 go', undefined, '- budget: 120 min (preset; budget:200 narrowed nothing)'],
    ['agent:explore go', 'C45', '- budget: 45 min (channel limit; preset asks 120)'],
    ['agent:explore budget:60 go', 'C45', '- budget: 45 min (channel limit; preset asks 120; budget:60 narrowed nothing)'],
    ['agent:explore budget:30 go', 'C45', '- budget: 30 min (budget directive; channel allows 45; preset asks 120)'],
    ['agent:explore budget:1 go', undefined, '- note: "budget:1" in the message was read as text (below the 5-minute minimum)'],
  ])('%j in %s: the config block says %j', (message, channel, line) => {
    expect(renderConfigBlock(build(message, channel).profile)).toContain(line);
  });

  it('every model-backed built-in builds; the ship pipeline refuses with a stable code', () => {
    for (const agent of catalog.agents.filter((a) => a.id !== 'ship')) {
      const profile = resolveProfile({ agent, config, directives: {} });
      expect(buildSystemPrompt(agent, profile)).toContain(`You are ${agent.displayName}`);
    }
    const ship = build('agent:ship go');
    expect(() => buildSystemPrompt(ship.agent, ship.profile)).toThrow(expect.objectContaining({ code: 'pipeline_has_no_prompt' }));
  });
});

describe('purity: agents/ and tools/ are safe for the workflow sandbox', () => {
  const root = join(__dirname, '..');
  const files = ['agents', 'agents/builtins', 'tools'].flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .map((name) => join(dir, name)),
  );
  it.each(files.filter((file) => file !== join('agents', 'custom-agents.ts')))(
    '%s uses no Node built-in, I/O library, clock or randomness',
    (file) => {
      const text = readFileSync(join(root, file), 'utf8');
      expect(text).not.toMatch(/from '(node:|fs|path|os|child_process|yaml)/);
      expect(text).not.toMatch(/Date\.now|new Date\(|Math\.random|process\./);
    },
  );
  it('the barrel does not re-export the file loader', () => {
    expect(readFileSync(join(root, 'agents', 'index.ts'), 'utf8')).not.toMatch(/from '.\/custom-agents'/);
  });
});

describe('tools turned off by the deployment', () => {
  it('leaves them out of the tool list and says in the About block what is off and why', () => {
    const agent = getAgent(catalog, 'research')!;
    const backends = {
      webSearch: { on: false as const, why: 'web.search.provider is brave but BRAVE_SEARCH_API_KEY is not set' },
      webFetch: true,
      skillFolders: false,
      github: true,
      slack: true,
    };
    const profile = resolveProfile({ agent, config, directives: {}, tooling: { backends, conversation: 'slack' } });
    expect(profile.tools).not.toContain('web_search');
    expect(profile.tools).toContain('web_fetch');
    expect(profile.toolsOff?.map((entry) => entry.tool)).toEqual(['web_search', 'list_skills', 'use_skill']);
    const prompt = buildSystemPrompt(agent, profile);
    expect(prompt).toContain(`You hold exactly ${profile.tools.length} tools`);
    expect(prompt).not.toMatch(/^- web_search:/m);
    expect(prompt).toContain(
      'Turned off in this deployment (not in your tool list, whatever your instructions above say about them): web_search (web.search.provider is brave but BRAVE_SEARCH_API_KEY is not set); list_skills (',
    );
  });

  it('says nothing when nothing is off', () => {
    const { agent, profile } = build('agent:explore go');
    expect(buildSystemPrompt(agent, profile)).not.toContain('Turned off in this deployment');
  });
});
