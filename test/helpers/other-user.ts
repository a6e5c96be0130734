import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../infra/paths';

/** The uid and gid of `nobody`: a worker that is not root cannot isolate commands (activities/sandbox/isolation.ts). */
export const NOBODY = 65534;

/** A command line run as `nobody`, with no supplementary groups. */
export function asNobody(argv: string[]): string[] {
  return ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', ...argv];
}

/** What a process of `nobody` runs the product with: a node binary and a project root it may read. */
export interface NobodyRuntime {
  node: string;
  root: string;
  /** Removes the readable copy, if one was made. */
  remove(): void;
}

/** The parts of the checkout the product and its CLI read at run time. */
const RUNTIME_PARTS = ['package.json', 'bin', 'dist', 'node_modules'];

/**
 * The node binary and project root `nobody` runs the product from. A checkout a root user made
 * in root's home (or any 0700 folder) is closed to `nobody`, so when it cannot read the checkout
 * (or run this node), it gets a readable folder of its own in the temp dir holding what it needs
 * (package.json, bin, dist, node_modules, and node itself), hard-linked from the checkout where
 * the filesystem allows and copied where not. It never enters the checkout itself.
 */
export function nobodyRuntime(): NobodyRuntime {
  const checkout = projectRoot();
  const readsCheckout = nobodyCan(['test', '-r', join(checkout, 'dist', 'infra', 'main.js')]);
  const runsNode = nobodyCan([process.execPath, '-e', '0']);
  if (readsCheckout && runsNode) return { node: process.execPath, root: checkout, remove: () => undefined };
  const root = mkdtempSync(join(tmpdir(), 'switchboard-nobody-runtime-'));
  try {
    chmodSync(root, 0o755);
    link(
      RUNTIME_PARTS.map((part) => join(checkout, part)),
      root,
    );
    if (!runsNode) link([process.execPath], root);
    const node = runsNode ? process.execPath : join(root, 'node');
    if (!nobodyCan([node, '-e', `require(${JSON.stringify(join(root, 'dist', 'infra', 'paths.js'))})`]))
      throw new Error(`nobody cannot run ${node} on ${root}`);
    return { node, root, remove: () => rmSync(root, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(
      `the tests that run the product as nobody need a node binary and a copy of package.json, bin, dist and node_modules it may read; ` +
        `making one in ${tmpdir()} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function nobodyCan(argv: string[]): boolean {
  const [file, ...args] = asNobody(argv);
  return spawnSync(file, args, { cwd: '/', stdio: 'ignore', timeout: 30_000 }).status === 0;
}

/** Hard links (cheap, same filesystem) or else copies, keeping modes. */
function link(paths: string[], into: string): void {
  try {
    execFileSync('cp', ['-al', ...paths, into], { stdio: 'pipe' });
  } catch {
    execFileSync('cp', ['-a', ...paths, into], { stdio: 'pipe' });
  }
}
