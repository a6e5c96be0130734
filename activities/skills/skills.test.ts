import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { workspaceLayout } from '../sandbox/workspace-layout';
import { createSkillActivities } from '.';
import { parseSkillFile } from './skill-files';

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const skill = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

describe('skills', () => {
  const root = mkdtempSync(join(tmpdir(), 'skills-'));
  const dataDir = join(root, 'data');
  const configured = join(root, 'configured');
  const secret = join(root, 'secret.txt');
  const workspace = { key: 'thread:test:skills', network: false };
  const work = workspaceLayout(dataDir, workspace).work;
  const skills = createSkillActivities({ dataDir, dirs: [configured, join(root, 'missing')] });

  beforeAll(() => {
    writeFileSync(secret, 'worker secret');
    put(join(configured, 'deploy', 'SKILL.md'), skill('deploy', 'Ship a release to staging.', '1. Run scripts/deploy.sh'));
    put(join(configured, 'deploy', 'scripts', 'deploy.sh'), 'echo deploying\n');
    put(join(configured, 'broken', 'SKILL.md'), 'no front matter here');
    put(
      join(work, 'app', '.switchboard', 'skills', 'lint', 'SKILL.md'),
      skill('lint', 'Lint this repository the house way.', 'Run npm run lint.'),
    );
    put(join(work, 'app', '.switchboard', 'skills', 'deploy', 'SKILL.md'), skill('deploy', 'A repository skill shadowed by config.', 'x'));
    // A repository skill that links out of the workspace must never be read.
    mkdirSync(join(work, 'app', '.switchboard', 'skills', 'escape'), { recursive: true });
    symlinkSync(secret, join(work, 'app', '.switchboard', 'skills', 'escape', 'SKILL.md'));
    symlinkSync(configured, join(work, 'app', '.switchboard', 'skills', 'outside'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

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
    const tmp = workspaceLayout(dataDir, workspace).tmp;
    expect(readFileSync(join(tmp, 'skills', 'deploy', 'scripts', 'deploy.sh'), 'utf8')).toBe('echo deploying\n');
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
