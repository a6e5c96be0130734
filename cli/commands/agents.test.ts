import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerAgentsCommand } from './agents';

const TRIAGE =
  'displayName: Triage\ndescription: Sorts new issues.\ntoolset: general\nbudgetMinutes: 10\ntokenCap: 8000\nprompt: Triage.\nsurfaces: [slack]\n';

/** A temp directory with a switchboard.yaml and a custom-agents folder. */
function setupDirectory(config: string, agents: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-cli-agents-'));
  writeFileSync(join(dir, 'switchboard.yaml'), config);
  mkdirSync(join(dir, 'agents.d'));
  for (const [name, text] of Object.entries(agents)) writeFileSync(join(dir, 'agents.d', name), text);
  return dir;
}

async function run(cwd: string, args: string[]): Promise<{ output: string; code: number }> {
  const lines: string[] = [];
  let code = 0;
  const program = new Command().exitOverride();
  registerAgentsCommand(program, { cwd, env: {}, write: (text) => lines.push(text), setExitCode: (value) => (code = value) });
  await program.parseAsync(args, { from: 'user' });
  return { output: lines.join('\n'), code };
}

describe('switchboard agents list', () => {
  it('prints the active catalog with toolset, machine, identity and budget', async () => {
    const cwd = setupDirectory('agents:\n  customAgentsDir: agents.d\n', { 'triage.agent.yaml': TRIAGE });
    const { output, code } = await run(cwd, ['agents', 'list']);
    expect(code).toBe(0);
    expect(output).toMatch(/^AGENT\s+TOOLSET\s+MACHINE\s+IDENTITY\s+BUDGET\s+TURNS\s+SURFACES/);
    expect(output).toMatch(/\nexplore\s+explore\s+repo-cold\s+read\s+120 min\s+720\s+slack,github,http,mcp,cli/);
    expect(output).toMatch(/\ntriage\s+general\s+none\s+none\s+10 min\s+60\s+slack/);
    expect(output).not.toMatch(/\norchestrator/);
  });

  it('--json with feature flags and a surface; problems are reported and exit 1', async () => {
    const cwd = setupDirectory('agents:\n  customAgentsDir: agents.d\n  featureFlags:\n    orchestrator: true\n', {
      'triage.agent.yaml': TRIAGE,
      'bad.agent.yaml': TRIAGE.replace('budgetMinutes: 10', 'budgetMinutes: ten'),
    });
    const { output, code } = await run(cwd, ['agents', 'list', '--json', '--surface', 'github']);
    const parsed = JSON.parse(output) as {
      agents: Array<{ id: string; budgetMinutes: number }>;
      roles: unknown[];
      problems: Array<{ source: string; field: string }>;
    };
    expect(parsed.agents.map((a) => a.id)).toEqual([
      'general',
      'coding',
      'review',
      'ship',
      'research',
      'explore',
      'conductor',
      'code-review',
      'rem-agent',
    ]);
    expect(parsed.roles).toHaveLength(8);
    expect(parsed.problems).toEqual([expect.objectContaining({ source: join(cwd, 'agents.d', 'bad.agent.yaml'), field: 'budgetMinutes' })]);
    expect(code).toBe(1);
  });

  it('a bad config is a readable message and exit 1', async () => {
    const cwd = setupDirectory('agents:\n  defaults:\n    effort: extreme\n');
    const { output, code } = await run(cwd, ['agents', 'list']);
    expect(output).toMatch(/Invalid configuration:[\s\S]*agents\.defaults\.effort/);
    expect(code).toBe(1);
  });

  it('--all adds the inactive entries and why: a feature flag that is off, a surface the agent does not serve', async () => {
    const cwd = setupDirectory('agents:\n  customAgentsDir: agents.d\n', { 'triage.agent.yaml': TRIAGE });
    const { output, code } = await run(cwd, ['agents', 'list', '--all', '--surface', 'github']);
    expect(code).toBe(0);
    expect(output).toMatch(/^AGENT\s+TOOLSET\s+MACHINE\s+IDENTITY\s+BUDGET\s+TURNS\s+SURFACES\s+STATUS/);
    expect(output).toMatch(/\nexplore\s.*\sactive\n/);
    expect(output).toMatch(/\norchestrator\s.*\sinactive: feature flag orchestrator is off \(agents\.featureFlags\.orchestrator\)/);
    expect(output).toMatch(/\ntriage\s.*\sinactive: not served on github \(surfaces: slack\)/);

    const json = JSON.parse((await run(cwd, ['agents', 'list', '--all', '--json'])).output) as {
      agents: Array<{ id: string; active: boolean; inactiveReason: string | null }>;
    };
    expect(json.agents.find((a) => a.id === 'orchestrator')).toMatchObject({
      active: false,
      inactiveReason: expect.stringMatching(/flag/),
    });
    expect(json.agents.find((a) => a.id === 'triage')).toMatchObject({ active: true, inactiveReason: null });
  });

  it('finds the custom agents next to a config file named from another folder', async () => {
    const home = setupDirectory('agents:\n  customAgentsDir: agents.d\n', { 'triage.agent.yaml': TRIAGE });
    const elsewhere = mkdtempSync(join(tmpdir(), 'switchboard-cli-agents-cwd-'));
    const lines: string[] = [];
    const program = new Command().exitOverride();
    registerAgentsCommand(program, {
      cwd: elsewhere,
      env: { SWITCHBOARD_CONFIG: join(home, 'switchboard.yaml') },
      write: (t) => lines.push(t),
    });
    await program.parseAsync(['agents', 'list'], { from: 'user' });
    expect(lines.join('\n')).toMatch(/\ntriage\s+general/);
  });
});
