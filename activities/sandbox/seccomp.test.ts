import { archTable, CLONE_NAMESPACE_FLAGS, evaluateFilter, REFUSED_SYSCALLS, seccompArchitecture, seccompFilter } from './seccomp';

describe.each(['x64', 'arm64'])('the seccomp filter (%s)', (arch) => {
  const table = archTable(arch)!;
  const filter = seccompFilter(arch);
  const call = (name: string, arg0?: number) => evaluateFilter(filter, { arch: table.audit, nr: table.numbers[name], arg0 });

  it('is a whole number of instructions and within the kernel limit', () => {
    expect(filter.length % 8).toBe(0);
    expect(filter.length / 8).toBeLessThan(4096);
  });

  it('refuses every listed syscall the architecture has, with EPERM', () => {
    for (const name of REFUSED_SYSCALLS) if (table.numbers[name] !== undefined) expect([name, call(name)]).toEqual([name, 'eperm']);
  });

  it('lets ordinary syscalls through (read, write, execve-alikes by number 0…20 that are not refused)', () => {
    const refused = new Set(Object.entries(table.numbers).map(([, nr]) => nr));
    for (let nr = 0; nr < 20; nr += 1) if (!refused.has(nr)) expect(evaluateFilter(filter, { arch: table.audit, nr })).toBe('allow');
  });

  it('refuses clone only with a new-namespace flag, and answers clone3 with ENOSYS so libc falls back', () => {
    const CLONE_VM_THREAD = 0x00010000 | 0x00000100;
    expect(call('clone', CLONE_VM_THREAD)).toBe('allow');
    expect(call('clone', 0x11)).toBe('allow');
    for (let bit = 0; bit < 32; bit += 1) {
      const flag = 2 ** bit;
      if (CLONE_NAMESPACE_FLAGS & flag) expect(call('clone', flag | 0x11)).toBe('eperm');
    }
    expect(call('clone3')).toBe('enosys');
  });

  it('kills a process calling in through another architecture', () => {
    expect(evaluateFilter(filter, { arch: 0x40000003, nr: 1 })).toBe('kill');
  });
});

describe('architectures', () => {
  it('refuses the x32 ABI on x86_64', () => {
    const table = archTable('x64')!;
    expect(evaluateFilter(seccompFilter('x64'), { arch: table.audit, nr: 0x40000000 + 1 })).toBe('eperm');
  });

  it('names only architectures it has tables for', () => {
    expect(seccompArchitecture('x64')).toBe('x64');
    expect(seccompArchitecture('riscv64')).toBeUndefined();
    expect(() => seccompFilter('riscv64')).toThrow(/no seccomp syscall table/);
  });
});
