import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../infra/paths';
import { MOTO_VERSION } from './helpers/moto';

/** The README's quick start and CI install the same system packages, listed once. */
describe('the system packages of the quick start', () => {
  const root = projectRoot();
  const listed = (JSON.parse(readFileSync(join(root, 'scripts', 'system-packages.json'), 'utf8')) as Array<{ package: string }>).map(
    (entry) => entry.package,
  );

  it("are the README's apt-get line, word for word", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const line = /^sudo apt-get install -y ([^#\n]+?)\s*(#.*)?$/m.exec(readme);
    expect(line?.[1].split(/\s+/)).toEqual(listed);
  });

  it('are what CI installs (it reads the list, it does not copy it)', () => {
    const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
    expect(ci).toContain('$(node scripts/check-system.js --names)');
    const installs = ci.split('\n').filter((line) => /apt-get install/.test(line));
    expect(installs.length).toBeGreaterThan(0);
    expect(installs.filter((line) => listed.some((name) => new RegExp(`\\s${name}(\\s|$)`).test(line)))).toEqual([]);
  });
});

/** The quick start is the system packages line and two commands: the main job, and the tests. */
describe('the quick start', () => {
  const root = projectRoot();
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const commands = block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);

  it('is three lines: the packages, `npm install && npm start`, `npm test`', () => {
    expect(commands).toHaveLength(3);
    expect(commands[0]).toMatch(/^sudo apt-get install -y /);
    expect(commands.slice(1)).toEqual(['npm install && npm start', 'npm test']);
  });

  it('needs no install line for what only the tests use: npm test provisions moto through the project script', () => {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.pretest).toBe('node scripts/provision-moto.js');
    // The helper that starts moto reads the script's own pin; nothing else names a version to keep equal.
    expect(readFileSync(join(root, 'scripts', 'provision-moto.js'), 'utf8')).toContain(`const MOTO_VERSION = '${MOTO_VERSION}';`);
    for (const file of ['README.md', join('.ci', 'run')])
      expect(readFileSync(join(root, file), 'utf8')).not.toMatch(/pip install[^\n]*moto/);
    // CI runs what the README says: npm ci (the install), then npm test.
    expect(readFileSync(join(root, '.ci', 'run'), 'utf8')).toMatch(/\nnpm test\n?$/);
  });
});
