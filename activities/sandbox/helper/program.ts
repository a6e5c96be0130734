import { CONFINE_PROGRAM } from './confine';

/**
 * The program every sandboxed process starts from, run by the system's Python
 * (`python3 -I -S -c PROGRAM …`). It is ours, passed on the command line (never a file the
 * sandbox could change), and does two things:
 *
 * 1. confines itself (confine.ts): resource limits (rlimits), `no_new_privs`, the seccomp filter
 *    built by seccomp.ts (a filter is inherited only by children, so every process entered into
 *    the holder needs its own), and, entering a holder, the sandbox's user namespace and user;
 * 2. then either executes the command (`exec`) or does one file operation for the worker's file
 *    tools inside the sandbox (`read`, `tail`, `write`, `list`, `skills`,
 *    `space`). The worker never opens
 *    a workspace file itself: a FIFO, a device or a link swapped mid-call can only stall or
 *    mislead this process, which the worker bounds with a timeout and reads as hostile data.
 *
 * Arguments: FILTER_HEX LIMITS_JSON ENTRY_JSON ROOTS_JSON OP ARGS…
 * File operations print one JSON line (`{"ok":…}`), followed by the raw bytes for `read`/`tail`.
 */
export const HELPER_PROGRAM =
  CONFINE_PROGRAM +
  String.raw`
import stat

class Refused(Exception):
    def __init__(self, code, error):
        self.code, self.error = code, error

def within(roots, path):
    return any(path == root or path.startswith(root.rstrip('/') + '/') for root in roots)

def outside(path):
    return Refused('path_outside_workspace', path + ' is outside the workspace; use a path inside it (relative, /workspace/… or /tmp/…)')

def open_regular(roots, path, flags):
    """Opens a regular file whose real path is inside a root, never blocking on what it is."""
    real = os.path.realpath(path)
    if not within(roots, real):
        raise outside(path)
    try:
        fd = os.open(real, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except FileNotFoundError:
        raise Refused('not_found', path + ' does not exist')
    except OSError as error:
        raise Refused('io_error', path + ': ' + (error.strerror or str(error)))
    try:
        # A link swapped in between the check and the open is caught by what was opened.
        if not within(roots, os.readlink('/proc/self/fd/%d' % fd)):
            raise outside(path)
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise Refused('io_error', path + ' is a directory; list it with bash (ls)')
        if not stat.S_ISREG(info.st_mode):
            raise Refused('io_error', path + ' is not a regular file (a FIFO, socket or device); the file tools read and write regular files only')
        return fd, info
    except BaseException:
        os.close(fd)
        raise

def read_all(fd, limit):
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(fd, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b''.join(chunks)

def answer(header, data=b''):
    out = sys.stdout.buffer
    out.write(dumps(header).encode() + b'\n')
    out.write(data)
    out.flush()

def op_read(roots, path, max_bytes):
    fd, info = open_regular(roots, path, os.O_RDONLY)
    try:
        if info.st_size > max_bytes:
            raise Refused('too_large', '%s is %d bytes, over the %d-byte read limit; use head/tail/grep in bash' % (path, info.st_size, max_bytes))
        data = read_all(fd, max_bytes + 1)
        if len(data) > max_bytes:
            raise Refused('too_large', '%s grew past the %d-byte read limit while it was read' % (path, max_bytes))
        answer({'ok': True, 'bytes': len(data)}, data)
    finally:
        os.close(fd)

def op_tail(roots, path, max_bytes):
    fd, info = open_regular(roots, path, os.O_RDONLY)
    try:
        start = max(0, info.st_size - max_bytes)
        os.lseek(fd, start, os.SEEK_SET)
        data = read_all(fd, max_bytes)
        answer({'ok': True, 'bytes': len(data), 'size': info.st_size}, data)
    finally:
        os.close(fd)

def make_parents(roots, path):
    parent = os.path.dirname(path)
    missing = []
    while parent and not os.path.lexists(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    if not within(roots, os.path.realpath(parent or '/')):
        raise outside(path)
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o755)
        except FileExistsError:
            pass
        if not within(roots, os.path.realpath(folder)):
            raise outside(path)

def op_write(roots, path, max_bytes):
    data = read_all(sys.stdin.buffer.fileno(), max_bytes + 1)
    if len(data) > max_bytes:
        raise Refused('too_large', 'the content is over the %d-byte write limit' % max_bytes)
    make_parents(roots, path)
    fd, _ = open_regular(roots, path, os.O_WRONLY | os.O_CREAT)
    try:
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        answer({'ok': True, 'bytes': len(data)})
    finally:
        os.close(fd)

def entries(folder, depth, limit, found, base):
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        if len(found) >= limit:
            return
        path = os.path.join(folder, name)
        info = os.lstat(path)
        kind = 'dir' if stat.S_ISDIR(info.st_mode) else 'file' if stat.S_ISREG(info.st_mode) else 'link' if stat.S_ISLNK(info.st_mode) else 'other'
        found.append({'path': os.path.relpath(path, base), 'kind': kind, 'size': info.st_size})
        if kind == 'dir' and depth > 1:
            entries(path, depth - 1, limit, found, base)

def op_list(roots, folder, depth, limit):
    real = os.path.realpath(folder)
    if not within(roots, real):
        raise outside(folder)
    if not os.path.isdir(real):
        raise Refused('not_found', folder + ' is not a folder')
    found = []
    entries(real, depth, limit, found, real)
    answer({'ok': True, 'entries': found})

def op_skills(roots, max_bytes, max_files):
    """Skill folders of the checkout: .switchboard/skills/<name>/SKILL.md at the root or one folder down."""
    root = roots[0]
    bases = [root]
    try:
        bases += [os.path.join(root, name) for name in sorted(os.listdir(root)) if os.path.isdir(os.path.join(root, name)) and not os.path.islink(os.path.join(root, name))]
    except OSError:
        pass
    skills = []
    for base in bases:
        folder = os.path.join(base, '.switchboard', 'skills')
        if os.path.islink(folder) or not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            skill = os.path.join(folder, name)
            if os.path.islink(skill) or not os.path.isdir(skill):
                continue
            try:
                fd, info = open_regular(roots, os.path.join(skill, 'SKILL.md'), os.O_RDONLY)
            except Refused:
                continue
            try:
                text = read_all(fd, max_bytes + 1) if info.st_size <= max_bytes else None
            finally:
                os.close(fd)
            if text is None or len(text) > max_bytes:
                continue
            found = []
            entries(skill, 8, max_files + 1, found, skill)
            files = [entry['path'] for entry in found if entry['kind'] == 'file' and entry['path'] != 'SKILL.md'][:max_files]
            skills.append({'dir': skill, 'text': text.decode('utf-8', 'replace'), 'files': files})
    answer({'ok': True, 'skills': skills})

def op_space(paths):
    """How full each filesystem is: the kernel's own counters (statvfs), never what a command printed."""
    spaces = []
    for path in paths:
        try:
            info = os.statvfs(path)
        except OSError:
            continue
        spaces.append({'path': path, 'size': info.f_blocks * info.f_frsize, 'free': info.f_bavail * info.f_frsize})
    answer({'ok': True, 'spaces': spaces})

def main(argv):
    confine(argv[0], loads(argv[1]), loads(argv[2]))
    roots, op, rest = loads(argv[3]), argv[4], argv[5:]
    if op == 'exec':
        # Python ignores SIGPIPE and SIGXFSZ for itself, and an ignored signal stays ignored across
        # exec: the command gets the defaults back (a pipe's reader gone ends the writer; a file
        # past RLIMIT_FSIZE ends its process).
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        try:
            os.execv(rest[0], rest)
        except OSError as error:
            fail('cannot run ' + rest[0] + ': ' + (error.strerror or str(error)))
    try:
        if op == 'read':
            op_read(roots, rest[0], int(rest[1]))
        elif op == 'tail':
            op_tail(roots, rest[0], int(rest[1]))
        elif op == 'write':
            op_write(roots, rest[0], int(rest[1]))
        elif op == 'list':
            op_list(roots, rest[0], int(rest[1]), int(rest[2]))
        elif op == 'skills':
            op_skills(roots, int(rest[0]), int(rest[1]))
        elif op == 'space':
            op_space(rest)
        else:
            fail('unknown operation ' + op)
    except Refused as refusal:
        answer({'ok': False, 'code': refusal.code, 'error': refusal.error})

main(sys.argv[1:])
`;

/** Where the sandbox finds the system's Python (the worker's own may live outside the folders it sees). */
export const SANDBOX_PYTHON = '/usr/bin/python3';
