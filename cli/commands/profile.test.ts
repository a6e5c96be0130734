import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerProfileCommand } from './profile';

const CONFIG = `agents:
  defaults:
    model: model-default
  restrict:
    agents:
      coding: [UDEV]
  channels:
    C45:
      budgetMinutes: 45
`;

function setupDirectory(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-cli-profile-'));
  writeFileSync(join(dir, 'switchboard.yaml'), config);
  return dir;
}

async function run(args: string[]): Promise<{ output: string; code: number }> {
  const lines: string[] = [];
  let code = 0;
  const program = new Command().exitOverride();
  registerProfileCommand(program, {
    cwd: setupDirectory(CONFIG),
    env: {},
    write: (text) => lines.push(text),
    setExitCode: (value) => (code = value),
  });
  await program.parseAsync(['profile', ...args], { from: 'user' });
  return { output: lines.join('\n'), code };
}

describe('switchboard profile', () => {
  it.each([
    [['agent:explore budget:30 in acme/api: time the build'], 'budget: 30 min (budget directive; preset asks 120); bounded by directive'],
    [['agent:explore budget:200 go'], 'budget: 120 min (preset; budget:200 narrowed nothing); bounded by preset'],
    [['agent:explore go', '--channel', 'C45'], 'budget: 45 min (channel limit; preset asks 120); bounded by channel'],
    [
      ['agent:explore budget:60 go', '--channel', 'C45'],
      'budget: 45 min (channel limit; preset asks 120; budget:60 narrowed nothing); bounded by channel',
    ],
    [
      ['agent:explore budget:30 go', '--channel', 'C45'],
      'budget: 30 min (budget directive; channel allows 45; preset asks 120); bounded by directive',
    ],
    [['agent:explore budget:1 go'], 'read as text: budget:1 (below the 5-minute minimum)'],
    [['fix the null check in src/login.ts'], 'agent: ship (Ship), by code-change'],
    [['agent:coding fix it', '--user', 'UDEV'], 'agent: coding (Coding), by directive'],
  ])('%j prints %j', async (args, line) => {
    const { output, code } = await run(args);
    expect(output.split('\n')).toContain(line);
    expect(code).toBe(0);
  });

  it('prints the whole profile for explore', async () => {
    const { output } = await run(['agent:explore in acme/api: time the build']);
    expect(output).toBe(
      [
        'agent: explore (Explore), by directive',
        'toolset: explore (15 tools)',
        'machine: repo-cold; identity: read',
        'model: model-default (default)',
        'effort: medium (default)',
        'budget: 120 min (preset); bounded by preset',
        'turn guard: 720; token cap: 64000; cache: 1h',
        'repository: acme/api (directive)',
        'text: time the build',
      ].join('\n'),
    );
  });

  it.each([
    [
      ['agent:coding fix it', '--user', 'U1'],
      /^refused: The coding agent is limited to named people .*\nrule: restrict\.agents\.coding \(agent_restricted\)$/,
    ],
    [
      ['agent:nope hi'],
      /^refused: There is no agent called "nope"\. You may use: general, review, ship, research, explore, conductor, code-review\./,
    ],
    [
      ['model:openai:gpt-5 hi'],
      /^refused: The model openai:gpt-5 is not one .*You may choose model-default, .*\nrule: models\.allowed \(model_not_allowed\)$/,
    ],
    [
      ['model:scripted:/etc/passwd hi', '--surface', 'cli'],
      /^refused: I did not use the model scripted:\/etc\/passwd: it is an absolute path/,
    ],
    [['agent:explore go', '--surface', 'mcp', '--self-serve'], /self_serve_shell/],
  ])('%j is refused', async (args, pattern) => {
    const { output, code } = await run(args);
    expect(output).toMatch(pattern);
    expect(code).toBe(1);
  });

  it('--json carries the profile with its attributions', async () => {
    const { output } = await run(['agent:explore budget:30 go', '--json']);
    const parsed = JSON.parse(output) as { profile: { budget: { minutes: number; boundedBy: string } }; route: { reason: string } };
    expect(parsed.profile.budget).toMatchObject({ minutes: 30, boundedBy: 'directive' });
    expect(parsed.route.reason).toBe('directive');
  });
});
