import { joinCgroupsArgv } from './cgroups';
import { HELPER_PROGRAM, SANDBOX_PYTHON } from './helper/program';
import { rlimits, type SandboxLimits } from './limits';
import { SANDBOX_INSIDE_UID } from './sandbox-uids';
import { type SandboxTarget } from './sandbox-host';

/**
 * A call's command dies with the worker that runs it (its deadline and reaping die with the
 * worker too); each link of the chain gets SIGKILL when its parent goes. Detached jobs are
 * children of the holder's init, not of this chain, so they are untouched.
 */
const DIE_WITH_PARENT = ['setpriv', '--pdeathsig', 'KILL', '--'];

/** Runs a command with `bash -c` in `dir`, stderr joined to stdout so the output keeps its order. */
export const shellArgs = (command: string, dir: string) => ['/bin/sh', '-c', 'cd "$2" && exec bash -c "$1" 2>&1', 'sh', command, dir];

/**
 * The argv that runs our helper program (`helperArgs`: `exec <argv…>` or one file operation) for
 * a workspace. Isolated: the chain joins the workspace's cgroups, enters the holder's namespaces
 * and becomes the sandbox user (the workspace's host uid) before anything of the sandbox runs;
 * then the helper sets the rlimits, `no_new_privs` and the seccomp filter (`filterHex`). No
 * process of this chain that is still host root executes a byte the sandbox wrote.
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
    JSON.stringify([target.roots.work, target.roots.tmp]),
    ...helperArgs,
  ];
  if (!target.holder) return [...(target.isolation.setpriv ? DIE_WITH_PARENT : []), ...helper];
  return [
    ...joinCgroupsArgv(target.cgroup?.procsFiles() ?? []),
    ...DIE_WITH_PARENT,
    // --root (no value) takes the holder's root: joining a mount namespace alone would leave us
    // at the namespace's base mount, not bwrap's new root. The user namespace is joined by a
    // second nsenter in the forked child: joining it changes credentials, which clears the
    // parent-death signal, and this first link must keep it to die with the worker.
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
    // Now inside the holder's pid namespace, where its init is pid 1. -S/-G make the process the
    // sandbox user of the holder's user namespace, which is the workspace's own host uid, before
    // it runs anything: every capability goes with the change of uid.
    'nsenter',
    '--target',
    '1',
    '--user',
    '-S',
    String(SANDBOX_INSIDE_UID),
    '-G',
    String(SANDBOX_INSIDE_UID),
    '--',
    // The change of uid cleared the parent-death signal: set it again, and no way back to privileges.
    'setpriv',
    '--pdeathsig',
    'KILL',
    '--no-new-privs',
    '--inh-caps=-all',
    '--',
    ...helper,
  ];
}
