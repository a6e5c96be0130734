import type { BashResult, FileResult } from '../../activities/sandbox/types';

/** Quotes a value for a POSIX shell: the model's text is data, never syntax. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function grepCommand(input: Record<string, unknown>): string {
  const max = (input.maxResults as number | undefined) ?? 200;
  const glob = input.glob ? ` --include=${shellQuote(input.glob as string)}` : '';
  const path = shellQuote((input.path as string | undefined) ?? '.');
  return `grep -rnE${glob} --exclude-dir=.git -e ${shellQuote(input.pattern as string)} ${path} | head -n ${max}`;
}

export function findFilesCommand(input: Record<string, unknown>): string {
  const max = (input.maxResults as number | undefined) ?? 200;
  return `find . -path ./.git -prune -o -type f -path ${shellQuote(`./${input.glob as string}`)} -print | sed 's#^./##' | head -n ${max}`;
}

export function listDirectoryCommand(input: Record<string, unknown>): string {
  return `ls -la ${shellQuote((input.path as string | undefined) ?? '.')}`;
}

export function describeBash(result: BashResult): string {
  const lines = [`exit code ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}`];
  if (result.output) lines.push(result.output);
  if (result.truncated) lines.push('[output truncated]');
  if (result.hint) lines.push(result.hint);
  return lines.join('\n');
}

export function describeFile(result: Extract<FileResult, { ok: true }>): string {
  const note = result.truncated ? '\n[truncated: read further with offset]' : '';
  return `${result.path} (${result.bytes} bytes):\n${result.content ?? ''}${note}`;
}
