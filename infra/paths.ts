import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The project root (the folder holding package.json), found from this file whether it runs
 * from TypeScript sources (tests) or from `dist/` (npm start).
 */
export function projectRoot(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/** The prebuilt workflow bundle the worker loads (written by `npm run build`). */
export function workflowBundlePath(): string {
  return join(projectRoot(), 'dist', 'workflow-bundle.js');
}
