// Reads the product's relative imports and finds circles in them, for test/house.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

const root = join(__dirname, '..', '..');
const skipped = new Set(['node_modules', 'dist', 'test', 'coverage', 'examples']);

/** Every non-test TypeScript file of the product, relative to the root with `/` separators. */
export function productFiles(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skipped.has(entry.name) || entry.name.startsWith('.') ? [] : productFiles(path);
    const file = relative(root, path).split('\\').join('/');
    return file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts') ? [file] : [];
  });
}

/** Each file's relative imports (type-only and re-exports included), resolved to files. */
export function importGraph(files: string[], read = (file: string) => readFileSync(join(root, file), 'utf8')) {
  const known = new Set(files);
  const resolve = (from: string, spec: string): string | undefined => {
    const base = normalize(join(dirname(from), spec))
      .split('\\')
      .join('/');
    return [`${base}.ts`, `${base}/index.ts`].find((candidate) => known.has(candidate));
  };
  return new Map(
    files.map((file) => {
      const specs = ts.preProcessFile(read(file), true, false).importedFiles.map((imported) => imported.fileName);
      const targets = specs.filter((spec) => spec.startsWith('.')).map((spec) => resolve(file, spec));
      return [file, new Set(targets.filter((target): target is string => !!target && target !== file))];
    }),
  );
}

/** Strongly connected groups of more than one file (Tarjan's algorithm, iterative). */
export function circles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edges: Iterator<string> }> = [];
    const enter = (node: string) => {
      index.set(node, next);
      low.set(node, next++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: (graph.get(node) ?? new Set<string>()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edge = frame.edges.next();
      if (!edge.done) {
        if (!index.has(edge.value)) enter(edge.value);
        else if (onStack.has(edge.value)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(edge.value)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.node);
      if (group.length > 1) found.push(group.sort());
    }
  }
  return found;
}
