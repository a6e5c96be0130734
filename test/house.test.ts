// The house's import rules, checked on every `npm test` (docs/architecture.md "Rooms"): no import
// circle anywhere in the product's code, the contracts import nothing outside themselves, and
// production never loads the emulators' room. A circle makes every file in it load, change and
// test together, which is how a 10-file knot between the contracts and the activities grew
// before; a check that fails at once is cheaper than finding the next one by reading.
import { circles, importGraph, productFiles } from './helpers/import-graph';

const files = productFiles();
const graph = importGraph(files);
// Test support beside the code (`test-support.ts`, `test-support/`) is loaded by tests only.
const testSupport = /(^|\/)test-support(\.ts$|\/)/;
const production = ['workflows/', 'activities/', 'agents/', 'tools/', 'server/', 'infra/', 'cli/'];

describe('the house', () => {
  it('finds a circle when there is one', () => {
    const sources: Record<string, string> = {
      'a/one.ts': "import { two } from './two';",
      'a/two.ts': "import type { three } from '../b/three';",
      'b/three.ts': "export { one } from '../a/one';",
      'b/four.ts': "import { one } from '../a/one';",
    };
    const knot = circles(importGraph(Object.keys(sources), (file) => sources[file]));
    expect(knot).toEqual([['a/one.ts', 'a/two.ts', 'b/three.ts']]);
  });

  it('has no import circle in the product code', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });

  it('keeps the contracts at the floor: they import nothing outside workflows/contracts', () => {
    const upward = files
      .filter((file) => file.startsWith('workflows/contracts/'))
      .flatMap((file) =>
        [...graph.get(file)!].filter((target) => !target.startsWith('workflows/contracts/')).map((target) => `${file} -> ${target}`),
      );
    expect(upward).toEqual([]);
  });

  it('keeps tools/ and agents/ pure: tools import only the contracts, agents only tools, contracts and config types', () => {
    const allowed: Record<string, string[]> = {
      'tools/': ['tools/', 'workflows/contracts/'],
      'agents/': ['agents/', 'tools/', 'workflows/contracts/', 'infra/config/'],
    };
    const stray = files.flatMap((file) => {
      const room = Object.keys(allowed).find((prefix) => file.startsWith(prefix));
      if (!room) return [];
      return [...graph.get(file)!]
        .filter((target) => !allowed[room].some((prefix) => target.startsWith(prefix)))
        .map((target) => `${file} -> ${target}`);
    });
    expect(stray).toEqual([]);
  });

  it('never loads the emulators from production code', () => {
    const loads = files
      .filter((file) => production.some((room) => file.startsWith(room)) && !testSupport.test(file))
      .flatMap((file) => [...graph.get(file)!].filter((target) => target.startsWith('emulators/')).map((target) => `${file} -> ${target}`));
    expect(files.some((file) => file.startsWith('emulators/'))).toBe(true);
    expect(loads).toEqual([]);
  });
});
