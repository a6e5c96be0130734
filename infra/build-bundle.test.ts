import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleIsCurrent, bundleSources } from './build-bundle';
import { projectRoot } from './paths';

describe('the workflow bundle is rebuilt only when its sources changed', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'switchboard-bundle-'));
    const files: Record<string, string> = {
      'workflows/index.ts': "export * from './thread';\nimport type { T } from '../lib/types';\n",
      'workflows/thread.ts': "import { helper } from '../lib';\nexport const t = helper;\n",
      'lib/index.ts': 'export const helper = 1;\n',
      'lib/types.ts': 'export type T = number;\n',
      'server/app.ts': "import '../workflows';\n",
      'package-lock.json': '{}\n',
      'dist/workflow-bundle.js': '// bundle\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const at = (path: string, seconds: number) => utimesSync(join(root, path), seconds, seconds);
  const bundle = () => join(root, 'dist', 'workflow-bundle.js');

  it('follows relative imports from workflows/index.ts, type-only ones included, plus the lockfile', () => {
    expect(
      bundleSources(root)
        .map((file) => file.slice(root.length + 1))
        .sort(),
    ).toEqual(['lib/index.ts', 'lib/types.ts', 'package-lock.json', 'workflows/index.ts', 'workflows/thread.ts']);
  });

  it('is current when the bundle is newer than every source, whatever else changed', () => {
    for (const file of bundleSources(root)) utimesSync(file, 1_000, 1_000);
    at('dist/workflow-bundle.js', 2_000);
    at('server/app.ts', 3_000);
    expect(bundleIsCurrent(bundle(), root)).toBe(true);
    at('lib/types.ts', 3_000);
    expect(bundleIsCurrent(bundle(), root)).toBe(false);
    at('lib/types.ts', 1_000);
    at('package-lock.json', 3_000);
    expect(bundleIsCurrent(bundle(), root)).toBe(false);
    rmSync(bundle());
    expect(bundleIsCurrent(bundle(), root)).toBe(false);
  });

  it("covers this repository's workflow code and the pure layers it imports", () => {
    const sources = bundleSources(projectRoot()).map((file) => file.slice(projectRoot().length + 1));
    expect(sources).toEqual(expect.arrayContaining(['workflows/index.ts', 'package-lock.json']));
    expect(sources.some((file) => file.startsWith('agents/'))).toBe(true);
    expect(sources.some((file) => file.startsWith('tools/'))).toBe(true);
    expect(sources.filter((file) => /^(server|cli)\//.test(file) || file.endsWith('.test.ts'))).toEqual([]);
  });
});
