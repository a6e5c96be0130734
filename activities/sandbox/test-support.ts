import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createSandboxActivities, createSandboxHost, type SandboxDeps, type WorkspaceRef } from './index';
import { detectIsolation, ISOLATION_FIX } from './isolation';
import { WorkspaceFiles } from './files';
import { SandboxHost } from './sandbox-host';
import { workspaceName } from './workspace-layout';

/** Helpers shared by the sandbox tests: a throwaway data dir and process inspection. */
export async function sandboxFixture(deps: Partial<SandboxDeps> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchboard-sandbox-'));
  const host = createSandboxHost({ dataDir, ...deps });
  const activities = createSandboxActivities({ dataDir, ...deps }, host);
  const used = new Set<string>();
  let counter = 0;
  return {
    dataDir,
    host,
    activities,
    /** A fresh workspace per test, released at cleanup. */
    workspace(network = false): WorkspaceRef {
      const ref = { key: `thread:test:${process.pid}:${(counter += 1)}`, network };
      used.add(ref.key);
      return ref;
    },
    async cleanup() {
      for (const key of used) await activities.releaseWorkspace({ workspace: { key, network: false } }).catch(() => undefined);
      host.shutDoors();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The sandbox suites need bubblewrap (fail closed is the product's rule, and the suite's). */
export async function requireBubblewrap(): Promise<void> {
  const check = await detectIsolation();
  if (check.mode !== 'bwrap') throw new Error(`these tests need bubblewrap isolation: ${check.reason}. Fix: ${ISOLATION_FIX}`);
}

/** Host pids of the processes a workspace's commands started (they carry its marker). */
export function markedPids(key: string): number[] {
  const marker = `SWITCHBOARD_WORKSPACE=${workspaceName(key)}`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(marker)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(50);
  }
}

/**
 * A file in the home folder (`/home/sandbox`, on the workspace's disk) of a workspace under
 * `dataDir` that a worker process, not this test, made: read inside its running sandbox, or
 * (`startIdle`, after the runs are over) in one started for the look and ended after. Commands of tests log there,
 * outside the checkout a unit commits and beyond the run's /tmp. Undefined while no workspace has it.
 */
export async function homeFileOfWorkspaces(
  dataDir: string,
  name: string,
  options: { startIdle?: boolean } = {},
): Promise<string | undefined> {
  const host = new SandboxHost({ dataDir, isolation: 'bwrap', gitBaseUrl: 'http://127.0.0.1:9' });
  const names = (await readdir(join(dataDir, 'workspaces')).catch(() => [] as string[])).filter((entry) => !entry.startsWith('.'));
  for (const workspace of names) {
    let target = await host.attach(workspace);
    const started = !target;
    // Only once no run can be starting it: two sandboxes of one workspace never run at once.
    if (!target && options.startIdle) target = await host.prepareByName(workspace).catch(() => undefined);
    if (!target) continue;
    try {
      const read = await new WorkspaceFiles(host, { ...target, roots: { work: '/home/sandbox', tmp: '/tmp' } }).readBytes(name);
      if (read.ok) return read.bytes.toString('utf8');
    } finally {
      if (started) await host.closeByName(workspace);
      host.shutDoors();
    }
  }
  return undefined;
}

/** Writes a file into the running sandbox of the (only) live workspace under `dataDir`: a detached job's exit file. */
export async function writeInLiveWorkspace(dataDir: string, path: string, content: string): Promise<boolean> {
  const host = new SandboxHost({ dataDir, isolation: 'bwrap', gitBaseUrl: 'http://127.0.0.1:9' });
  for (const { name } of await host.liveHolders()) {
    const target = await host.attach(name);
    if (target) return (await new WorkspaceFiles(host, target).write(path, content)).ok;
  }
  return false;
}
