import { existsSync } from 'node:fs';
import { type FileHandle } from 'node:fs/promises';
import { type FileResult, type JobStatus } from './types';
import { locate, openForRead, openForWrite, type PathRefusal } from './workspace-paths';
import { type WorkspaceLayout } from './workspace-layout';

export interface FileLimits {
  /** Files larger than this are refused as too_large (read whole to count lines). */
  maxReadBytes: number;
  /** Characters of content returned by one read; more is cut and `truncated` says so. */
  maxReadChars: number;
  maxWriteBytes: number;
}

export const DEFAULT_FILE_LIMITS: FileLimits = { maxReadBytes: 10 * 1024 * 1024, maxReadChars: 100_000, maxWriteBytes: 5 * 1024 * 1024 };
const DEFAULT_LINE_LIMIT = 2_000;

function isRefusal(value: FileHandle | PathRefusal): value is PathRefusal {
  return 'ok' in value;
}

function failure(path: string, error: unknown): FileResult {
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, path, code: 'io_error', error: message };
}

/** Reads lines `offset`.. (1-based) of a workspace file; binary files are refused as data. */
export async function readWorkspaceFile(
  layout: WorkspaceLayout,
  path: string,
  limits: FileLimits,
  offset = 1,
  limit = DEFAULT_LINE_LIMIT,
): Promise<FileResult> {
  const located = locate(layout, path);
  if ('ok' in located) return { ...located, path };
  try {
    const handle = await openForRead(located.root, located.target, path);
    if (isRefusal(handle)) return { ...handle, path };
    try {
      const stat = await handle.stat();
      if (stat.isDirectory()) return { ok: false, path, code: 'io_error', error: `${path} is a directory; list it with bash (ls)` };
      if (stat.size > limits.maxReadBytes) {
        return {
          ok: false,
          path,
          code: 'too_large',
          error: `${path} is ${stat.size} bytes, over the ${limits.maxReadBytes}-byte read limit; use head/tail/grep in bash`,
        };
      }
      const bytes = await handle.readFile();
      if (bytes.subarray(0, 8_000).includes(0))
        return { ok: false, path, code: 'io_error', error: `${path} looks binary (it holds NUL bytes); inspect it with bash` };
      const lines = bytes.toString('utf8').split('\n');
      const first = Math.max(1, Math.floor(offset));
      const count = Math.max(1, Math.floor(limit));
      let content = lines.slice(first - 1, first - 1 + count).join('\n');
      const truncated = content.length > limits.maxReadChars || first - 1 + count < lines.length;
      if (content.length > limits.maxReadChars)
        content = `${content.slice(0, limits.maxReadChars)}\n[… cut at ${limits.maxReadChars} characters; read on with offset …]`;
      return { ok: true, path, content, bytes: stat.size, truncated, totalLines: lines.length };
    } finally {
      await handle.close();
    }
  } catch (error) {
    return failure(path, error);
  }
}

/** Creates or replaces a workspace file (parents created). */
export async function writeWorkspaceFile(layout: WorkspaceLayout, path: string, content: string, limits: FileLimits): Promise<FileResult> {
  if (typeof content !== 'string') return { ok: false, path, code: 'io_error', error: 'content must be a string' };
  const data = Buffer.from(content, 'utf8');
  if (data.length > limits.maxWriteBytes) {
    return {
      ok: false,
      path,
      code: 'too_large',
      error: `the content is ${data.length} bytes, over the ${limits.maxWriteBytes}-byte write limit`,
    };
  }
  const located = locate(layout, path);
  if ('ok' in located) return { ...located, path };
  try {
    const handle = await openForWrite(located.root, located.target, path);
    if (isRefusal(handle)) return { ...handle, path };
    try {
      await handle.truncate(0);
      await handle.write(data, 0, data.length, 0);
      return { ok: true, path, bytes: data.length };
    } finally {
      await handle.close();
    }
  } catch (error) {
    return failure(path, error);
  }
}

/** Whether a detached job has written its exit file, and the tail of its log. */
export async function readJobStatus(layout: WorkspaceLayout, exitFile: string, logFile?: string): Promise<JobStatus> {
  if (!existsSync(layout.tmp)) return { done: false, error: 'the workspace does not exist (never prepared, or released)' };
  const exit = await readWorkspaceFile(layout, exitFile, DEFAULT_FILE_LIMITS, 1, 5);
  if (!exit.ok && exit.code !== 'not_found') return { done: false, error: `exit file: ${exit.error}` };
  const code = exit.ok ? Number.parseInt((exit.content ?? '').trim(), 10) : Number.NaN;
  // An exit file still being written (empty) is not an end yet.
  const status: JobStatus = Number.isNaN(code) ? { done: false } : { done: true, exitCode: code };
  if (logFile) {
    const log = await readLogTail(layout, logFile);
    if (typeof log === 'string') status.logTail = log;
    else if (log.code !== 'not_found') status.error = `log file: ${log.error}`;
  }
  return status;
}

/** The last lines of a log, read from its end so a huge log costs no more than a small one. */
async function readLogTail(layout: WorkspaceLayout, path: string, lines = 40, bytes = 4_000): Promise<string | PathRefusal> {
  const located = locate(layout, path);
  if ('ok' in located) return located;
  try {
    const handle = await openForRead(located.root, located.target, path);
    if (isRefusal(handle)) return handle;
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, bytes);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      return buffer.toString('utf8').replace(/\n$/, '').split('\n').slice(-lines).join('\n');
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { ok: false, code: 'io_error', error: error instanceof Error ? error.message : String(error) };
  }
}
