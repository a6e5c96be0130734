/**
 * The seccomp filter every sandboxed process runs under: a classic BPF program that refuses the
 * system calls builds never need and that widen the kernel's attack surface (kernel keyrings,
 * bpf, perf events, userfaultfd, the mount family, modules, kexec, new namespaces, clocks, swap,
 * reboot, io_uring, file handles). Built here as bytes (`struct sock_filter[]`, little-endian)
 * and loaded by bubblewrap for the holder (`--seccomp FD`) and by the exec helper for every
 * command entered into it (prctl PR_SET_SECCOMP), since a filter is inherited by children only.
 * `ptrace` stays allowed: the pid namespace already limits it to the workspace's own processes.
 */

/** An architecture we have syscall numbers for, with its audit id (linux/audit.h). */
interface ArchTable {
  audit: number;
  /** Syscalls of the other ABI sharing this arch id (x32 on x86_64) start here; all refused. */
  foreignAbiBase?: number;
  numbers: Readonly<Record<string, number>>;
}

/** x86_64 (asm/unistd_64.h). */
// prettier-ignore
const X86_64: ArchTable = {
  audit: 0xc000003e,
  foreignAbiBase: 0x40000000,
  numbers: {
    add_key: 248, request_key: 249, keyctl: 250, bpf: 321, perf_event_open: 298, userfaultfd: 323,
    mount: 165, umount2: 166, pivot_root: 155, move_mount: 429, open_tree: 428, fsopen: 430, fsconfig: 431,
    fsmount: 432, fspick: 433, mount_setattr: 442, init_module: 175, finit_module: 313, delete_module: 176,
    kexec_load: 246, kexec_file_load: 320, unshare: 272, setns: 308, clone: 56, clone3: 435, swapon: 167,
    swapoff: 168, reboot: 169, acct: 163, settimeofday: 164, clock_settime: 227, clock_adjtime: 305,
    adjtimex: 159, open_by_handle_at: 304, name_to_handle_at: 303, iopl: 172, ioperm: 173, quotactl: 179,
    quotactl_fd: 443, syslog: 103, lookup_dcookie: 212, vhangup: 153, nfsservctl: 180, uselib: 134,
    io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, fanotify_init: 300,
  },
};

/** aarch64, which uses the generic table (asm-generic/unistd.h). */
// prettier-ignore
const AARCH64: ArchTable = {
  audit: 0xc00000b7,
  numbers: {
    add_key: 217, request_key: 218, keyctl: 219, bpf: 280, perf_event_open: 241, userfaultfd: 282,
    mount: 40, umount2: 39, pivot_root: 41, move_mount: 429, open_tree: 428, fsopen: 430, fsconfig: 431,
    fsmount: 432, fspick: 433, mount_setattr: 442, init_module: 105, finit_module: 273, delete_module: 106,
    kexec_load: 104, kexec_file_load: 294, unshare: 97, setns: 268, clone: 220, clone3: 435, swapon: 224,
    swapoff: 225, reboot: 142, acct: 89, settimeofday: 170, clock_settime: 112, clock_adjtime: 266,
    adjtimex: 171, open_by_handle_at: 265, name_to_handle_at: 264, quotactl: 60, quotactl_fd: 443,
    syslog: 116, lookup_dcookie: 18, vhangup: 58, nfsservctl: 42, io_uring_setup: 425, io_uring_enter: 426,
    io_uring_register: 427, fanotify_init: 262,
  },
};

const TABLES: Readonly<Record<string, ArchTable>> = { x64: X86_64, arm64: AARCH64 };

/** Refused with EPERM. `clone` is refused only with a new-namespace flag; `clone3` answers ENOSYS so libc falls back to clone. */
// prettier-ignore
export const REFUSED_SYSCALLS = [
  'add_key', 'request_key', 'keyctl', 'bpf', 'perf_event_open', 'userfaultfd', 'fanotify_init',
  'mount', 'umount2', 'pivot_root', 'move_mount', 'open_tree', 'fsopen', 'fsconfig', 'fsmount', 'fspick', 'mount_setattr',
  'init_module', 'finit_module', 'delete_module', 'kexec_load', 'kexec_file_load',
  'unshare', 'setns', 'swapon', 'swapoff', 'reboot', 'acct', 'settimeofday', 'clock_settime', 'clock_adjtime', 'adjtimex',
  'open_by_handle_at', 'name_to_handle_at', 'iopl', 'ioperm', 'quotactl', 'quotactl_fd', 'syslog', 'lookup_dcookie',
  'vhangup', 'nfsservctl', 'uselib', 'io_uring_setup', 'io_uring_enter', 'io_uring_register',
] as const;

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
export const CLONE_NAMESPACE_FLAGS = 0x7e020000;

const EPERM = 1;
const ENOSYS = 38;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

/** Offsets in `struct seccomp_data`: nr, arch, then args[0] (its low word, little-endian). */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The architecture name (`process.arch`) seccomp can filter here, or undefined. */
export function seccompArchitecture(arch: string = process.arch): string | undefined {
  return TABLES[arch] ? arch : undefined;
}

/** The filter for an architecture, as the bytes of `struct sock_filter[]`. */
export function seccompFilter(arch: string = process.arch): Buffer {
  const table = TABLES[arch];
  if (!table) throw new Error(`no seccomp syscall table for the ${arch} architecture`);
  const refused = REFUSED_SYSCALLS.map((name) => table.numbers[name]).filter((nr): nr is number => nr !== undefined);
  // Layout: checks first, then the shared tails they jump to. Jumps are relative to the next instruction.
  const program: Instruction[] = [];
  const tails = { allow: -1, eperm: -1, enosys: -1, kill: -1, clone: -1 };
  const jumps: Array<{ at: number; field: 'jt' | 'jf'; to: keyof typeof tails }> = [];
  const emit = (code: number, k: number, jt?: keyof typeof tails, jf?: keyof typeof tails) => {
    const at = program.push({ code, jt: 0, jf: 0, k }) - 1;
    if (jt) jumps.push({ at, field: 'jt', to: jt });
    if (jf) jumps.push({ at, field: 'jf', to: jf });
  };
  emit(LD_W_ABS, ARCH);
  emit(JEQ_K, table.audit, undefined, 'kill');
  emit(LD_W_ABS, NR);
  if (table.foreignAbiBase !== undefined) emit(JGE_K, table.foreignAbiBase, 'eperm');
  emit(JEQ_K, table.numbers.clone3, 'enosys');
  emit(JEQ_K, table.numbers.clone, 'clone');
  for (const nr of refused) emit(JEQ_K, nr, 'eperm');
  tails.allow = program.length;
  emit(RET_K, RET_ALLOW);
  tails.clone = program.length;
  emit(LD_W_ABS, ARG0_LOW);
  emit(JSET_K, CLONE_NAMESPACE_FLAGS, 'eperm');
  emit(RET_K, RET_ALLOW);
  tails.eperm = program.length;
  emit(RET_K, RET_ERRNO | EPERM);
  tails.enosys = program.length;
  emit(RET_K, RET_ERRNO | ENOSYS);
  tails.kill = program.length;
  emit(RET_K, RET_KILL_PROCESS);
  for (const jump of jumps) {
    const offset = tails[jump.to] - (jump.at + 1);
    if (offset < 0 || offset > 255) throw new Error('seccomp filter jump out of range');
    program[jump.at][jump.field] = offset;
  }
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(instruction.jt, index * 8 + 2);
    bytes.writeUInt8(instruction.jf, index * 8 + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return bytes;
}

/** Runs the filter on one call, as the kernel would: what it answers (`allow`, `eperm`, `enosys`, `kill`). For tests. */
export function evaluateFilter(filter: Buffer, call: { arch: number; nr: number; arg0?: number }): 'allow' | 'eperm' | 'enosys' | 'kill' {
  let accumulator = 0;
  for (let pc = 0; pc * 8 < filter.length; pc += 1) {
    const code = filter.readUInt16LE(pc * 8);
    const jt = filter.readUInt8(pc * 8 + 2);
    const jf = filter.readUInt8(pc * 8 + 3);
    const k = filter.readUInt32LE(pc * 8 + 4);
    if (code === LD_W_ABS) accumulator = k === ARCH ? call.arch : k === NR ? call.nr : k === ARG0_LOW ? (call.arg0 ?? 0) >>> 0 : 0;
    else if (code === RET_K) {
      if (k === RET_ALLOW) return 'allow';
      if (k === (RET_ERRNO | EPERM)) return 'eperm';
      if (k === (RET_ERRNO | ENOSYS)) return 'enosys';
      return 'kill';
    } else {
      const taken =
        code === JEQ_K ? accumulator === k : code === JGE_K ? accumulator >>> 0 >= k : code === JSET_K ? (accumulator & k) !== 0 : false;
      pc += taken ? jt : jf;
    }
  }
  throw new Error('the filter ran off its end');
}

/** The audit arch id and syscall numbers of an architecture (tests). */
export function archTable(arch: string): ArchTable | undefined {
  return TABLES[arch];
}
