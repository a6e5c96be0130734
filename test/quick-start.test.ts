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

/** The S3 server the tests start is installed by the README and CI at the version the helper names. */
describe('moto in the quick start', () => {
  it('is pinned alike in the README, CI and test/helpers/moto.ts', () => {
    const pin = `--target .moto "moto[server]==${MOTO_VERSION}"`;
    expect(readFileSync(join(projectRoot(), 'README.md'), 'utf8')).toContain(`python3 -m pip install ${pin}`);
    expect(readFileSync(join(projectRoot(), '.ci', 'run'), 'utf8')).toContain(pin);
  });
});
