import { mkdtemp, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createSandboxActivities, type SandboxDeps, type WorkspaceRef } from './index';
import { detectIsolation } from './isolation';
import { workspaceName } from './workspace-layout';

/** Helpers shared by the sandbox tests: a throwaway data dir and process inspection. */
export async function sandboxFixture(deps: Partial<SandboxDeps> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchboard-sandbox-'));
  const activities = createSandboxActivities({ dataDir, ...deps });
  const used = new Set<string>();
  let counter = 0;
  return {
    dataDir,
    activities,
    /** A fresh workspace per test, released at cleanup. */
    workspace(network = false): WorkspaceRef {
      const ref = { key: `thread:test:${process.pid}:${(counter += 1)}`, network };
      used.add(ref.key);
      return ref;
    },
    async cleanup() {
      for (const key of used) await activities.releaseWorkspace({ workspace: { key, network: false } });
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether this machine runs commands under bubblewrap (the tests assert the fallback otherwise). */
export async function bubblewrapHere(): Promise<boolean> {
  return (await detectIsolation()).mode === 'bwrap';
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
