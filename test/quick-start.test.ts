import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../infra/paths';

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
