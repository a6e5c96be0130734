import { joinCgroupsArgv } from './cgroups';
import { HELPER_PROGRAM, SANDBOX_PYTHON } from './helper/program';
import { rlimits, type SandboxLimits } from './limits';
import { SANDBOX_INSIDE_UID } from './sandbox-uids';
import { type SandboxTarget } from './sandbox-target';

/**
 * A call's command dies with the worker that runs it (its deadline and reaping die with the
 * worker too); each link of the chain gets SIGKILL when its parent goes. Detached jobs are
 * children of the holder's init, not of this chain, so they are untouched.
 */
const DIE_WITH_PARENT = ['setpriv', '--pdeathsig', 'KILL', '--'];

/** Runs a command with `bash -c` in `dir`, stderr joined to stdout so the output keeps its order. */
export const shellArgs = (command: string, dir: string) => ['/bin/sh', '-c', 'cd "$2" && exec bash -c "$1" 2>&1', 'sh', command, dir];

/**
 * What the helper needs to enter a holder (its ENTRY_JSON): the holder's user namespace, as the
 * holder's /proc names it from inside its pid namespace (its init is pid 1 there), and the
 * sandbox user to become in it, which is the workspace's own host uid.
 */
export const HOLDER_ENTRY = { userNamespace: '/proc/1/ns/user', uid: SANDBOX_INSIDE_UID, gid: SANDBOX_INSIDE_UID } as const;

/**
 * The argv that runs our helper program (`helperArgs`: `exec <argv…>` or one file operation) for
 * a workspace. Isolated: the chain joins the workspace's cgroups and enters the holder's
 * namespaces except its user namespace, still as host root; the helper (helper/confine.ts) then
 * sets the rlimits and `no_new_privs`, joins the user namespace, loads the seccomp filter
 * (`filterHex`) and only then becomes the sandbox user. A process of the workspace can never
 * trace or signal a link of this chain before its filter and limits are in place: until the
 * helper changes uid it is host root, and from then on it is confined. No process of this chain
 * that is still host root executes a byte the sandbox wrote (everything it runs is from the
 * read-only system folders).
 */
export function entryArgv(target: SandboxTarget, limits: SandboxLimits, filterHex: string, helperArgs: string[]): string[] {
  const isolated = target.holder !== undefined;
  const helper = [
    SANDBOX_PYTHON,
    '-I',
    '-S',
    '-c',
    HELPER_PROGRAM,
    isolated ? filterHex : '',
    JSON.stringify(rlimits(limits, isolated)),
    JSON.stringify(isolated ? HOLDER_ENTRY : {}),
    JSON.stringify([target.roots.work, target.roots.tmp]),
    ...helperArgs,
  ];
  if (!target.holder) return [...(target.isolation.setpriv ? DIE_WITH_PARENT : []), ...helper];
  return [
    ...joinCgroupsArgv(target.cgroup?.procsFiles() ?? []),
    ...DIE_WITH_PARENT,
    // --root (no value) takes the holder's root: joining a mount namespace alone would leave us
    // at the namespace's base mount, not bwrap's new root. The user namespace is not joined
    // here: the helper joins it itself, after no_new_privs and before its filter, so that it
    // stays host root (out of reach of every process of the workspace) until it is confined.
    // nsenter forks into the holder's pid namespace, where its init is pid 1; the helper sets
    // its own parent-death signal once its credentials stop changing.
    'nsenter',
    '--target',
    String(target.holder.pid),
    '--mount',
    '--pid',
    '--ipc',
    '--uts',
    '--net',
    '--root',
    '--',
    ...helper,
  ];
}
