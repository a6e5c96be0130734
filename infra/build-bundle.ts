import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { projectRoot, workflowBundlePath } from './paths';

/**
 * Builds the workflow bundle once, at build time, so workers start without webpack.
 * `workflowsPath` may be compiled JS (npm run build) or TypeScript (the test setup).
 */
export async function buildWorkflowBundle(workflowsPath: string, outFile = workflowBundlePath()): Promise<string> {
  // Loaded here, not at the top: checking whether the bundle is current must stay cheap.
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  // The tolerant payload converter sits beside the workflows (workflows/payload-converter.ts, or its compiled .js).
  const payloadConverterPath = join(dirname(workflowsPath), 'payload-converter');
  // Temporal's OpenTelemetry interceptors, switched on per workflow by its start (workflows/tracing/).
  const workflowInterceptorModules = [join(dirname(workflowsPath), 'tracing', 'index')];
  const { code } = await bundleWorkflowCode({ workflowsPath, payloadConverterPath, workflowInterceptorModules, logger: quietLogger });
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, code);
  return outFile;
}

/**
 * The files the bundle is made from: every TypeScript source reachable by relative imports
 * from workflows/index.ts (type-only ones too, which only errs towards rebuilding), and the
 * lockfile, which pins the SDK the bundle embeds.
 */
export function bundleSources(root = projectRoot()): string[] {
  const seen = new Set<string>();
  const pending = [
    join(root, 'workflows', 'index.ts'),
    join(root, 'workflows', 'payload-converter.ts'),
    join(root, 'workflows', 'tracing', 'index.ts'),
  ];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from\s+|import\s*\(?\s*|require\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g)) {
      const target = resolve(dirname(file), match[2]);
      const found = [`${target}.ts`, join(target, 'index.ts'), target].find(
        (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
      );
      if (found) pending.push(found);
    }
  }
  return [...seen, join(root, 'package-lock.json')].filter((file) => existsSync(file));
}

/** Whether the bundle exists and is newer than every file it is made from. */
export function bundleIsCurrent(bundle = workflowBundlePath(), root = projectRoot()): boolean {
  if (!existsSync(bundle)) return false;
  const built = statSync(bundle).mtimeMs;
  return bundleSources(root).every((file) => statSync(file).mtimeMs <= built);
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: console.warn, error: console.error };

/** `node dist/infra/build-bundle.js [--force]`: rebuilds only when a source changed, unless forced. */
if (require.main === module) {
  if (!process.argv.includes('--force') && bundleIsCurrent()) {
    console.log('workflow bundle is up to date');
  } else {
    buildWorkflowBundle(require.resolve('../workflows/index'))
      .then((file) => console.log(`workflow bundle written to ${file}`))
      .catch((error: unknown) => {
        console.error(error instanceof Error ? error.message : error);
        process.exit(1);
      });
  }
}
