import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { requireBubblewrap, sandboxFixture } from '../sandbox/test-support';
import { createSkillActivities } from '.';
import { parseSkillFile } from './skill-files';

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const skill = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

describe('skills', () => {
  const root = mkdtempSync(join(tmpdir(), 'skills-'));
  const configured = join(root, 'configured');
  const secret = join(root, 'secret.txt');
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let workspace: ReturnType<typeof fixture.workspace>;
  let skills: ReturnType<typeof createSkillActivities>;

  beforeAll(async () => {
    await requireBubblewrap();
    fixture = await sandboxFixture();
    workspace = fixture.workspace();
    skills = createSkillActivities({ sandboxHost: fixture.host, dirs: [configured, join(root, 'missing')] });
    writeFileSync(secret, 'worker secret');
    put(join(configured, 'deploy', 'SKILL.md'), skill('deploy', 'Ship a release to staging.', '1. Run scripts/deploy.sh'));
    put(join(configured, 'deploy', 'scripts', 'deploy.sh'), 'echo deploying\n');
    put(join(configured, 'broken', 'SKILL.md'), 'no front matter here');
    // The checkout's skills are written by the run's own commands, in its sandbox.
    const inside = (name: string, description: string, body: string) =>
      `mkdir -p app/.switchboard/skills/${name} && printf '%s' '${skill(name, description, body)}' > app/.switchboard/skills/${name}/SKILL.md`;
    const made = await fixture.activities.bash({
      workspace,
      command: [
        inside('lint', 'Lint this repository the house way.', 'Run npm run lint.'),
        inside('deploy', 'A repository skill shadowed by config.', 'x'),
        // A repository skill that links out of the workspace must never be read.
        'mkdir -p app/.switchboard/skills/escape && ln -s /etc/passwd app/.switchboard/skills/escape/SKILL.md',
        `ln -s /etc app/.switchboard/skills/outside`,
      ].join(' && '),
    });
    expect(made.exitCode).toBe(0);
  });
  afterAll(async () => {
    await fixture?.cleanup();
    rmSync(root, { recursive: true, force: true });
  });

  it('lists configured and repository skills; configured wins a clash; links out are skipped', async () => {
    const listed = await skills.listSkills({ workspace });
    expect(listed.skills).toEqual([
      { name: 'deploy', description: 'Ship a release to staging.', source: 'config' },
      { name: 'lint', description: 'Lint this repository the house way.', source: 'repository' },
    ]);
    expect(listed.problems.map((p) => p.problem)).toEqual([
      expect.stringContaining('front matter'),
      'the name deploy is taken by an earlier skill',
    ]);
    expect(JSON.stringify(listed)).not.toContain('worker secret');
    expect(JSON.stringify(listed)).not.toContain('root:x:0');
    expect((await skills.listSkills({ workspace, query: 'LINT' })).skills.map((s) => s.name)).toEqual(['lint']);
    expect((await skills.listSkills({})).skills.map((s) => s.name)).toEqual(['deploy']);
  });

  it('returns a repository skill with its location in the workspace', async () => {
    const used = await skills.useSkill({ workspace, name: 'lint' });
    expect(used).toMatchObject({
      ok: true,
      instructions: 'Run npm run lint.',
      location: '/workspace/app/.switchboard/skills/lint',
      files: [],
    });
  });

  it("copies a configured skill into the run's /tmp so its files are reachable with the run's tools", async () => {
    const used = await skills.useSkill({ workspace, name: 'deploy' });
    expect(used).toMatchObject({ ok: true, source: 'config', location: '/tmp/skills/deploy', files: ['scripts/deploy.sh'] });
    const copied = await fixture.activities.bash({ workspace, command: 'cat /tmp/skills/deploy/scripts/deploy.sh' });
    expect(copied.output).toBe('echo deploying\n');
  });

  it('gives a run without a workspace the files inline, and names unknown skills', async () => {
    const used = await skills.useSkill({ name: 'deploy' });
    expect(used).toMatchObject({ ok: true, inlined: [{ path: 'scripts/deploy.sh', content: 'echo deploying\n' }] });
    expect(used.ok && used.location).toBeUndefined();
    expect(await skills.useSkill({ workspace, name: 'escape' })).toMatchObject({
      ok: false,
      code: 'skill_unknown',
      available: ['deploy', 'lint'],
    });
  });

  it('validates front matter', () => {
    expect(parseSkillFile(skill('ok-name', 'Does a thing.', 'Body'))).toEqual({
      ok: true,
      name: 'ok-name',
      description: 'Does a thing.',
      body: 'Body',
    });
    expect(parseSkillFile(skill('bad name!', 'x', ''))).toMatchObject({ ok: false });
    expect(parseSkillFile('---\nname: a\n---\n')).toMatchObject({ ok: false, problem: expect.stringContaining('description') });
    expect(parseSkillFile('---\n: [\n---\n')).toMatchObject({ ok: false, problem: expect.stringContaining('not YAML') });
  });
});
