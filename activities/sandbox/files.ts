import { runHelper, type HelperAnswer } from './helper/run-helper';
import { HOST_ENV } from './host-exec';
import { type SandboxHost, type SandboxTarget } from './sandbox-host';
import { type FileResult, type JobStatus } from '../../workflows/contracts/sandbox';
import { locate, type PathRefusal } from './workspace-paths';

export interface FileLimits {
  /** Files larger than this are refused as too_large (read whole to count lines). */
  maxReadBytes: number;
  /** Characters of content returned by one read; more is cut and `truncated` says so. */
  maxReadChars: number;
  maxWriteBytes: number;
  /** How long one file operation may take inside the sandbox before it is killed. */
  timeoutMs: number;
}

export const DEFAULT_FILE_LIMITS: FileLimits = {
  maxReadBytes: 10 * 1024 * 1024,
  maxReadChars: 100_000,
  maxWriteBytes: 5 * 1024 * 1024,
  timeoutMs: 30_000,
};
const DEFAULT_LINE_LIMIT = 2_000;
/** Room for the helper's JSON header beside the bytes it returns. */
const HEADER_ROOM = 64 * 1024;

export type FileCode = Extract<FileResult, { ok: false }>['code'];

const FILE_CODES: readonly string[] = ['path_outside_workspace', 'not_found', 'too_large', 'io_error', 'sandbox_unavailable'];
const asCode = (code: string): FileCode => (FILE_CODES.includes(code) ? (code as FileCode) : 'io_error');

export interface ListedEntry {
  path: string;
  kind: 'dir' | 'file' | 'link' | 'other';
  size: number;
}

export interface RepositorySkill {
  /** The skill's folder as the sandbox names it. */
  dir: string;
  text: string;
  files: string[];
}

/**
 * A workspace's files, as the worker's tools reach them: every operation runs inside the
 * workspace's sandbox as its user (the file helper), bounded in time and size, so the worker
 * never opens what a command wrote. Unisolated, the same helper runs on the host.
 */
export class WorkspaceFiles {
  constructor(
    private readonly host: SandboxHost,
    private readonly prepared: SandboxTarget,
    private readonly limits: FileLimits = DEFAULT_FILE_LIMITS,
  ) {}

  private call<T extends object>(args: string[], maxOutputBytes: number, input?: Buffer): Promise<HelperAnswer<T>> {
    return runHelper<T>({
      argv: this.host.argv(this.prepared, args),
      env: HOST_ENV,
      timeoutMs: this.limits.timeoutMs,
      maxOutputBytes,
      ...(input ? { input } : {}),
    });
  }

  private locate(path: string): { target: string } | PathRefusal {
    return locate(this.prepared.layout, this.prepared.roots, path);
  }

  /** A file's bytes, at most `maxBytes` (a bigger file is refused as too_large). */
  async readBytes(
    path: string,
    maxBytes = this.limits.maxReadBytes,
  ): Promise<{ ok: true; bytes: Buffer } | Extract<FileResult, { ok: false }>> {
    const located = this.locate(path);
    if ('ok' in located) return { ...located, path };
    const answer = await this.call<{ bytes: number }>(['read', located.target, String(maxBytes)], maxBytes + HEADER_ROOM);
    if (!answer.ok) return { ok: false, path, code: asCode(answer.code), error: answer.error };
    return { ok: true, bytes: answer.data };
  }

  /** Reads lines `offset`.. (1-based) of a text file; binary files are refused as data. */
  async read(path: string, offset = 1, limit = DEFAULT_LINE_LIMIT): Promise<FileResult> {
    const read = await this.readBytes(path);
    if (!read.ok) return read;
    const bytes = read.bytes;
    if (bytes.subarray(0, 8_000).includes(0))
      return { ok: false, path, code: 'io_error', error: `${path} looks binary (it holds NUL bytes); inspect it with bash` };
    const lines = bytes.toString('utf8').split('\n');
    const first = Math.max(1, Math.floor(offset));
    const count = Math.max(1, Math.floor(limit));
    let content = lines.slice(first - 1, first - 1 + count).join('\n');
    const truncated = content.length > this.limits.maxReadChars || first - 1 + count < lines.length;
    if (content.length > this.limits.maxReadChars)
      content = `${content.slice(0, this.limits.maxReadChars)}\n[… cut at ${this.limits.maxReadChars} characters; read on with offset …]`;
    return { ok: true, path, content, bytes: bytes.length, truncated, totalLines: lines.length };
  }

  /** Creates or replaces a file (parents created), never through a link out of the workspace. */
  async write(path: string, content: string | Buffer): Promise<FileResult> {
    if (typeof content !== 'string' && !Buffer.isBuffer(content))
      return { ok: false, path, code: 'io_error', error: 'content must be a string' };
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    if (data.length > this.limits.maxWriteBytes) {
      return {
        ok: false,
        path,
        code: 'too_large',
        error: `the content is ${data.length} bytes, over the ${this.limits.maxWriteBytes}-byte write limit`,
      };
    }
    const located = this.locate(path);
    if ('ok' in located) return { ...located, path };
    const answer = await this.call<{ bytes: number }>(['write', located.target, String(this.limits.maxWriteBytes)], HEADER_ROOM, data);
    if (!answer.ok) return { ok: false, path, code: asCode(answer.code), error: answer.error };
    return { ok: true, path, bytes: answer.header.bytes };
  }

  /** The last lines of a file, read from its end so a huge log costs no more than a small one. */
  async tail(path: string, lines = 40, bytes = 4_000): Promise<{ ok: true; text: string } | Extract<FileResult, { ok: false }>> {
    const located = this.locate(path);
    if ('ok' in located) return { ...located, path };
    const answer = await this.call<{ bytes: number }>(['tail', located.target, String(bytes)], bytes + HEADER_ROOM);
    if (!answer.ok) return { ok: false, path, code: asCode(answer.code), error: answer.error };
    return { ok: true, text: answer.data.toString('utf8').replace(/\n$/, '').split('\n').slice(-lines).join('\n') };
  }

  /** Whether a detached job has written its exit file, and the tail of its log. */
  async jobStatus(exitFile: string, logFile?: string): Promise<JobStatus> {
    const exit = await this.readBytes(exitFile, 64);
    if (!exit.ok && exit.code !== 'not_found') return { done: false, error: `exit file: ${exit.error}` };
    const code = exit.ok ? Number.parseInt(exit.bytes.toString('utf8').trim(), 10) : Number.NaN;
    // An exit file still being written (empty) is not an end yet.
    const status: JobStatus = Number.isNaN(code) ? { done: false } : { done: true, exitCode: code };
    if (logFile) {
      const log = await this.tail(logFile);
      if (log.ok) status.logTail = log.text;
      else if (log.code !== 'not_found') status.error = `log file: ${log.error}`;
    }
    return status;
  }

  /** A folder's entries (links reported, never followed), depth-first, at most `limit`. */
  async list(path: string, depth = 1, limit = 500): Promise<{ ok: true; entries: ListedEntry[] } | Extract<FileResult, { ok: false }>> {
    const located = this.locate(path);
    if ('ok' in located) return { ...located, path };
    const answer = await this.call<{ entries: ListedEntry[] }>(['list', located.target, String(depth), String(limit)], 4 * 1024 * 1024);
    if (!answer.ok) return { ok: false, path, code: asCode(answer.code), error: answer.error };
    return { ok: true, entries: Array.isArray(answer.header.entries) ? answer.header.entries : [] };
  }

  /** Size and free bytes of the filesystems at `paths`, from the kernel's counters inside the sandbox (unreadable ones left out). */
  async spaces(paths: readonly string[]): Promise<Array<{ path: string; size: number; free: number }>> {
    const answer = await this.call<{ spaces: Array<{ path: string; size: number; free: number }> }>(['space', ...paths], HEADER_ROOM);
    if (!answer.ok || !Array.isArray(answer.header.spaces)) return [];
    return answer.header.spaces.filter(
      (space) => typeof space?.path === 'string' && Number.isFinite(space.size) && Number.isFinite(space.free),
    );
  }

  /** The checkout's `.switchboard/skills/<name>/` folders (at its root or one folder down), read in one call. */
  async repositorySkills(maxBytes: number, maxFiles: number): Promise<RepositorySkill[]> {
    const answer = await this.call<{ skills: RepositorySkill[] }>(['skills', String(maxBytes), String(maxFiles)], 16 * 1024 * 1024);
    if (!answer.ok || !Array.isArray(answer.header.skills)) return [];
    return answer.header.skills.filter(
      (skill) => typeof skill?.dir === 'string' && typeof skill.text === 'string' && Array.isArray(skill.files),
    );
  }
}
