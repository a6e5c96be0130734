import { type IsolationCheck } from './isolation-check';
import { describeLimits, type SandboxLimits } from './limits';
import { REFUSED_SYSCALLS } from './seccomp';
import { SANDBOX_INSIDE_UID, type UidRange } from './sandbox-uids';

/** What confines and bounds a workspace here, one line each, as `switchboard doctor` and `/healthz` show it. */
export interface SandboxBounds {
  user: string;
  seccomp: string;
  cgroups: string;
  limits: Record<string, string>;
}

/** The bounds in force on this host, from what the probe found and the configured limits. */
export function sandboxBounds(check: IsolationCheck, limits: SandboxLimits, uids: UidRange): SandboxBounds {
  const controllers = Object.keys(check.cgroups?.parents ?? {});
  const cgroupVersion = check.cgroups?.version ?? 'none';
  return {
    user:
      `each workspace runs as a host uid of its own (${uids.first}…${uids.first + uids.count - 1}), mapped to uid ${SANDBOX_INSIDE_UID} ` +
      'inside a user namespace with no nested user namespaces; nothing inside is root on the host',
    seccomp: `${check.seccomp ?? process.arch} filter: ${REFUSED_SYSCALLS.length} syscalls refused (keyrings, bpf, perf, userfaultfd, mount family, modules, kexec, namespaces, clocks, io_uring …), no_new_privs`,
    cgroups:
      cgroupVersion === 'none'
        ? 'none usable on this host: processes are bounded by RLIMIT_NPROC only, memory is unbounded'
        : `cgroup v${cgroupVersion}: ${controllers.join(', ')} per workspace, under the worker's own cgroup`,
    limits: describeLimits(limits, {
      cgroupPids: controllers.includes('pids'),
      cgroupMemory: controllers.includes('memory'),
      diskImage: check.diskImages === true,
    }),
  };
}
