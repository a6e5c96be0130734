import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { mib, type SandboxLimits } from './limits';

/**
 * Per-workspace cgroups, under the worker's own cgroup (so whatever bounds the worker bounds its
 * sandboxes too): `pids` and `memory` bound the workspace as a whole, `cpu` gives it a low share
 * so a busy sandbox cannot starve the worker. cgroup v1 (one hierarchy per controller) and v2
 * (one unified hierarchy; the worker's cgroup is delegated: its own processes move to a leaf so
 * the controllers can be enabled below it) are both handled; a host with neither leaves the
 * rlimits as the only process bound, and `switchboard doctor` says so.
 */
export type CgroupController = 'pids' | 'memory' | 'cpu';

export interface CgroupLayout {
  version: 1 | 2 | 'none';
  /** v1: the folder under which each controller's workspace groups live; v2: the one parent folder. */
  parents: Partial<Record<CgroupController, string>>;
}

interface MountedHierarchy {
  version: 1 | 2;
  mountPoint: string;
  /** v1: the controllers of this hierarchy. */
  controllers: string[];
}

/** The cgroup hierarchies mounted on this host, from /proc/self/mountinfo. */
export function mountedHierarchies(mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): MountedHierarchy[] {
  const found: MountedHierarchy[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!right) continue;
    const [fstype, , superOptions = ''] = right.split(' ');
    const mountPoint = left.split(' ')[4];
    if (fstype === 'cgroup2') found.push({ version: 2, mountPoint, controllers: [] });
    else if (fstype === 'cgroup') found.push({ version: 1, mountPoint, controllers: superOptions.split(',') });
  }
  return found;
}

/** The worker's own cgroup path per v1 controller, and its v2 path (`''` key), from /proc/self/cgroup. */
export function ownCgroups(text = readFileSync('/proc/self/cgroup', 'utf8')): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of text.trim().split('\n')) {
    const [, controllers, path] = line.split(/:(.*?):/);
    if (path === undefined) continue;
    if (controllers === '') own.set('', path);
    for (const controller of controllers.split(',')) if (controller) own.set(controller, path);
  }
  return own;
}

const WANTED: CgroupController[] = ['pids', 'memory', 'cpu'];

/** Where workspace cgroups go on this host, creating the parent folders (v2: delegating the worker's cgroup). */
export async function prepareCgroupLayout(): Promise<CgroupLayout> {
  const mounted = mountedHierarchies();
  const own = ownCgroups();
  const v1: CgroupLayout = { version: 1, parents: {} };
  for (const controller of WANTED) {
    const hierarchy = mounted.find((entry) => entry.version === 1 && entry.controllers.includes(controller));
    const path = own.get(controller);
    if (hierarchy && path !== undefined) v1.parents[controller] = join(hierarchy.mountPoint, path, 'switchboard');
  }
  if (v1.parents.pids || v1.parents.memory) {
    for (const parent of Object.values(v1.parents)) await mkdir(parent, { recursive: true });
    return v1;
  }
  const unified = mounted.find((entry) => entry.version === 2);
  const path = own.get('');
  if (!unified || path === undefined) return { version: 'none', parents: {} };
  const mine = join(unified.mountPoint, path);
  const available = (await readFile(join(mine, 'cgroup.controllers'), 'utf8').catch(() => '')).split(/\s+/);
  const usable = WANTED.filter((controller) => available.includes(controller));
  if (!usable.includes('pids') && !usable.includes('memory')) return { version: 'none', parents: {} };
  await delegate(mine, usable);
  const parent = join(mine, 'switchboard');
  await mkdir(parent, { recursive: true });
  await enable(parent, usable);
  return { version: 2, parents: Object.fromEntries(usable.map((controller) => [controller, parent])) };
}

async function enable(folder: string, controllers: string[]): Promise<void> {
  await writeFile(join(folder, 'cgroup.subtree_control'), controllers.map((controller) => `+${controller}`).join(' '));
}

/**
 * cgroup v2 lets a cgroup hand controllers to children only when it holds no processes itself:
 * the worker's processes move to a leaf beside the workspaces first (what a delegated service does).
 */
async function delegate(mine: string, controllers: string[]): Promise<void> {
  try {
    await enable(mine, controllers);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EBUSY') throw error;
  }
  const leaf = join(mine, 'switchboard-worker');
  await mkdir(leaf, { recursive: true });
  for (const pid of (await readFile(join(mine, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean)) {
    await writeFile(join(leaf, 'cgroup.procs'), pid).catch(() => undefined);
  }
  await enable(mine, controllers);
}

/** One workspace's cgroups: created with its bounds before its sandbox starts, removed when it closes. */
export class WorkspaceCgroup {
  constructor(
    private readonly layout: CgroupLayout,
    private readonly name: string,
  ) {}

  /** The folders of this workspace's groups (one per v1 hierarchy; one in v2). */
  folders(): string[] {
    return [...new Set(Object.values(this.layout.parents).map((parent) => join(parent, this.name)))];
  }

  private folder(controller: CgroupController): string | undefined {
    const parent = this.layout.parents[controller];
    return parent ? join(parent, this.name) : undefined;
  }

  has(controller: CgroupController): boolean {
    return this.layout.parents[controller] !== undefined;
  }

  async create(limits: SandboxLimits): Promise<void> {
    for (const folder of this.folders()) await mkdir(folder, { recursive: true });
    const pids = this.folder('pids');
    const memory = this.folder('memory');
    const cpu = this.folder('cpu');
    if (pids) await writeFile(join(pids, 'pids.max'), String(limits.processes));
    if (this.layout.version === 1) {
      if (memory) {
        await writeFile(join(memory, 'memory.limit_in_bytes'), String(mib(limits.memoryMiB)));
        // Swap must not extend the bound where swap is accounted.
        if (existsSync(join(memory, 'memory.memsw.limit_in_bytes')))
          await writeFile(join(memory, 'memory.memsw.limit_in_bytes'), String(mib(limits.memoryMiB))).catch(() => undefined);
      }
      if (cpu) await writeFile(join(cpu, 'cpu.shares'), '256');
    } else if (this.layout.version === 2) {
      if (memory) {
        await writeFile(join(memory, 'memory.max'), String(mib(limits.memoryMiB)));
        await writeFile(join(memory, 'memory.swap.max'), '0').catch(() => undefined);
      }
      if (cpu) await writeFile(join(cpu, 'cpu.weight'), '25');
    }
  }

  /** The files a process writes its pid to, to join every group of the workspace. */
  procsFiles(): string[] {
    return this.folders().map((folder) => join(folder, 'cgroup.procs'));
  }

  /** How often the groups refused a fork and killed for memory so far (compared before and after a command). */
  async events(): Promise<{ forkRefusals: number; oomKills: number }> {
    const pids = this.folder('pids');
    const memory = this.folder('memory');
    const read = (path: string | undefined) => (path ? readFile(path, 'utf8').catch(() => '') : Promise.resolve(''));
    const counter = (text: string, key: string) => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    const pidsEvents = await read(pids && join(pids, 'pids.events'));
    const memoryEvents = await read(memory && join(memory, this.layout.version === 1 ? 'memory.oom_control' : 'memory.events'));
    return { forkRefusals: counter(pidsEvents, 'max'), oomKills: counter(memoryEvents, 'oom_kill') };
  }

  /** Removes the groups once their processes are gone (a group with members cannot be removed). */
  async remove(): Promise<void> {
    for (const folder of this.folders()) {
      for (let attempt = 0; attempt < 50; attempt += 1) {
        try {
          await rmdir(folder);
          break;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') break;
          if (code !== 'EBUSY' || attempt === 49) throw error;
          await delay(20);
        }
      }
    }
  }
}

/**
 * The argv prefix that makes a process join the workspace's groups before it runs anything
 * else: a shell of the host (running as the worker) writes its own pid and executes the rest,
 * so no process of the chain is ever outside the bounds.
 */
export function joinCgroupsArgv(procsFiles: readonly string[]): string[] {
  if (procsFiles.length === 0) return [];
  return [
    '/bin/sh',
    '-c',
    'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"',
    'switchboard-cgroup',
    ...procsFiles,
    '--',
  ];
}
