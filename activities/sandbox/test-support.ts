import { mkdtemp, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createSandboxActivities, createSandboxHost, type SandboxDeps, type WorkspaceRef } from './index';
import { detectIsolation, ISOLATION_FIX } from './isolation';
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
