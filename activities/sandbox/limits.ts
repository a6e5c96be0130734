/**
 * What one workspace may use of the host. Processes and memory are bounded by the workspace's
 * cgroup where the host has the controllers (and processes also by RLIMIT_NPROC, which counts
 * per uid, and every workspace has a uid of its own); `/tmp` and `/dev/shm` are sized tmpfs;
 * the workspace's files live on a disk image of bounded size; each process's CPU time and
 * file size are rlimits. Going past a bound fails that command, never the worker.
 */
export interface SandboxLimits {
  /** Processes and threads of the workspace at once (cgroup pids.max and RLIMIT_NPROC). */
  processes: number;
  /** Memory of the workspace's processes, its tmpfs pages included (cgroup memory limit), in MiB. */
  memoryMiB: number;
  /** Size of the private `/tmp` (a tmpfs that lives as long as the workspace's sandbox), in MiB. */
  tmpMiB: number;
  /** Size of `/dev/shm`, in MiB. */
  shmMiB: number;
  /** Size of the workspace disk (`/workspace` and `$HOME`), in MiB; 0 keeps them in a plain folder with no total bound. */
  diskMiB: number;
  /** CPU seconds one process may use (RLIMIT_CPU); a detached job is one process too. */
  cpuSeconds: number;
  /** The largest file one process may write (RLIMIT_FSIZE), in MiB. */
  fileMiB: number;
  /** Open files per process (RLIMIT_NOFILE). */
  openFiles: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  processes: 1024,
  memoryMiB: 4096,
  tmpMiB: 1024,
  shmMiB: 256,
  diskMiB: 10240,
  cpuSeconds: 3600,
  fileMiB: 4096,
  openFiles: 4096,
};

const MIB = 1024 * 1024;

export const mib = (value: number): number => value * MIB;

/**
 * Seconds a process that ignores SIGXCPU at its CPU bound still gets before SIGKILL. With the
 * soft and hard limits equal the kernel sends SIGKILL straight away, and then nothing tells a
 * CPU bound from any other kill; SIGXCPU at the soft limit does.
 */
export const CPU_GRACE_SECONDS = 5;

/**
 * The rlimits the exec helper sets before it runs anything (names as Python's `resource`
 * module spells them after `RLIMIT_`; a number is both soft and hard limit, a pair is
 * `[soft, hard]`). RLIMIT_NPROC counts every process of the real uid on the host, so it bounds
 * a workspace only when its uid is its own: unisolated, commands run as the worker's user and
 * NPROC is left alone.
 */
export function rlimits(limits: SandboxLimits, isolated: boolean): Record<string, number | [number, number]> {
  return {
    ...(isolated ? { NPROC: limits.processes } : {}),
    CPU: [limits.cpuSeconds, limits.cpuSeconds + CPU_GRACE_SECONDS],
    FSIZE: mib(limits.fileMiB),
    NOFILE: limits.openFiles,
    CORE: 0,
  };
}

/** One line per bound, for `switchboard doctor` and `/healthz`. */
export function describeLimits(limits: SandboxLimits, enforced: { cgroupPids: boolean; cgroupMemory: boolean; diskImage: boolean }) {
  return {
    processes: `${limits.processes} (${enforced.cgroupPids ? 'cgroup pids.max and ' : ''}RLIMIT_NPROC of the workspace's own uid)`,
    memory: enforced.cgroupMemory ? `${limits.memoryMiB} MiB (cgroup)` : 'unbounded: this host has no memory cgroup controller',
    tmp: `${limits.tmpMiB} MiB tmpfs`,
    shm: `${limits.shmMiB} MiB tmpfs`,
    disk:
      limits.diskMiB > 0 && enforced.diskImage
        ? `${limits.diskMiB} MiB ext4 image per workspace`
        : `unbounded total (a plain folder${limits.diskMiB > 0 ? ': this host cannot mount loop devices' : ': sandbox.limits.diskMiB is 0'}); one file at most ${limits.fileMiB} MiB`,
    cpu: `${limits.cpuSeconds} s of CPU per process (RLIMIT_CPU: SIGXCPU, then SIGKILL ${CPU_GRACE_SECONDS} s later)`,
    fileSize: `${limits.fileMiB} MiB per file (RLIMIT_FSIZE)`,
    openFiles: `${limits.openFiles} per process (RLIMIT_NOFILE)`,
  };
}
