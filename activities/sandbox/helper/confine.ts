/**
 * The first part of the helper program (program.ts): how a process entering a workspace is
 * confined before anything of the workspace can touch it. Isolated, the chain (entry-argv.ts)
 * reaches this program still as host root, inside the holder's mount, pid, IPC, UTS and network
 * namespaces but not yet its user namespace; this step then, in this order:
 *
 * 1. moves to the sandbox's root folder (nsenter keeps the caller's folder, which is the host's);
 * 2. sets the rlimits and clears the supplementary groups (the sandbox's user namespace refuses
 *    setgroups later) while it is still host root;
 * 3. sets `no_new_privs`, joins the holder's user namespace and loads the seccomp filter
 *    (`setns` is one of the calls the filter refuses, so the join comes first);
 * 4. becomes the sandbox user (the workspace's host uid): the kernel makes a process non-dumpable
 *    when its uid changes in place, and the capabilities it still holds in the user namespace
 *    keep a process without them from tracing it anyway; then drops every capability and sets
 *    the parent-death signal again (each change of credentials cleared it).
 *
 * Until step 4 the process is host root, which no process of the workspace may trace or signal;
 * from step 4 on its filter and limits are in place. Only the exec of the command makes it
 * dumpable again. So there is no moment at which a process of the workspace can attach to it
 * without a filter (docs/sandbox.md, "Entering a workspace").
 *
 * Unisolated (ENTRY_JSON `{}`), only the rlimits apply: there is no filter and no uid to become.
 */
export const CONFINE_PROGRAM = String.raw`
import ctypes, os, resource, signal, sys
from _json import encode_basestring_ascii as quote, make_scanner

# The little JSON the worker passes and reads, through the C half of Python's json module: the
# package itself compiles regular expressions on import, which would double the start of every
# command and file operation (docs/performance.md).
class JsonContext:
    strict, object_hook, object_pairs_hook = True, None, None
    parse_float, parse_int, parse_constant = float, int, None

scan = make_scanner(JsonContext())

def loads(text):
    return scan(text, 0)[0]

def dumps(value):
    if value is True or value is False:
        return 'true' if value else 'false'
    if value is None:
        return 'null'
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, dict):
        return '{' + ','.join(quote(key) + ':' + dumps(item) for key, item in value.items()) + '}'
    return '[' + ','.join(dumps(item) for item in value) + ']'

def fail(message):
    sys.stderr.write('switchboard sandbox helper: ' + message + '\n')
    sys.exit(125)

libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]

def prctl(what, option, arg2, arg3=0):
    if libc.prctl(option, arg2, arg3, 0, 0) != 0:
        fail(what + ' refused: ' + os.strerror(ctypes.get_errno()))

def load_filter(filter_hex):
    program = bytes.fromhex(filter_hex)
    buffer = ctypes.create_string_buffer(program, len(program))
    class Fprog(ctypes.Structure):
        _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]
    fprog = Fprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    prctl('seccomp', 22, 2, ctypes.addressof(fprog))

def drop_bounding_set():
    with open('/proc/sys/kernel/cap_last_cap') as last:
        for cap in range(int(last.read()) + 1):
            prctl('dropping the capability bounding set', 24, cap)
    prctl('clearing ambient capabilities', 47, 4)

def drop_capabilities():
    class Header(ctypes.Structure):
        _fields_ = [('version', ctypes.c_uint32), ('pid', ctypes.c_int)]
    class Data(ctypes.Structure):
        _fields_ = [('effective', ctypes.c_uint32), ('permitted', ctypes.c_uint32), ('inheritable', ctypes.c_uint32)]
    data = (Data * 2)()
    if libc.capset(ctypes.byref(Header(0x20080522, 0)), data) != 0:
        fail('dropping capabilities refused: ' + os.strerror(ctypes.get_errno()))

def confine(filter_hex, limits, entry):
    parent = os.getppid()
    if entry:
        os.chdir('/')
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, 'RLIMIT_' + name), tuple(value) if isinstance(value, list) else (value, value))
    if not filter_hex:
        return
    if entry:
        os.setgroups([])
    prctl('no_new_privs', 38, 1)
    if entry:
        fd = os.open(entry['userNamespace'], os.O_RDONLY | os.O_CLOEXEC)
        if libc.setns(fd, 0x10000000) != 0:
            fail('joining the sandbox user namespace refused: ' + os.strerror(ctypes.get_errno()))
        os.close(fd)
    load_filter(filter_hex)
    if entry:
        drop_bounding_set()
        os.setresgid(entry['gid'], entry['gid'], entry['gid'])
        os.setresuid(entry['uid'], entry['uid'], entry['uid'])
        drop_capabilities()
        prctl('the parent-death signal', 1, signal.SIGKILL)
        # The parent died before the signal was set again: nobody waits for this process.
        if os.getppid() != parent:
            sys.exit(125)
`;
