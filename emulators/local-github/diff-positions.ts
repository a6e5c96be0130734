/**
 * Where a pull request review comment may sit, as GitHub decides it: on a line of the file's
 * diff (a hunk's added or context line on the `RIGHT`, a removed or context line on the `LEFT`),
 * or at a `position` (the legacy count of lines below the patch's first `@@` header). The local
 * GitHub's own reading of the unified diff, kept apart from Switchboard's so one cannot hide a
 * mistake of the other.
 */

export type DiffSide = 'LEFT' | 'RIGHT';

export interface DiffLine {
  /** 1-based position below the first hunk header (hunk headers after the first count too). */
  position: number;
  side: DiffSide;
  /** The line's number on its side (the new file on the right, the old one on the left). */
  line: number;
  /** Which hunk of the patch it is in (from 1). */
  hunk: number;
}

/** Every commentable line of one file's patch, in patch order (a context line is listed once per side). */
export function diffLines(patch: string): DiffLine[] {
  const found: DiffLine[] = [];
  let oldLine = 0;
  let newLine = 0;
  let position = 0;
  let hunk = 0;
  let started = false;
  for (const text of patch.split('\n')) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (header) {
      // The first header is position 0; later ones take a position of their own.
      if (started) position += 1;
      started = true;
      hunk += 1;
      oldLine = Number(header[1]);
      newLine = Number(header[2]);
      continue;
    }
    if (!started || text.startsWith('\\')) continue;
    position += 1;
    if (text.startsWith('+')) found.push({ position, side: 'RIGHT', line: newLine++, hunk });
    else if (text.startsWith('-')) found.push({ position, side: 'LEFT', line: oldLine++, hunk });
    else if (text.startsWith(' ') || text === '') {
      found.push({ position, side: 'RIGHT', line: newLine++, hunk });
      found.push({ position, side: 'LEFT', line: oldLine++, hunk });
    }
  }
  return found;
}

/** Whether `line` on `side` is part of the patch. */
export function inDiff(patch: string, side: DiffSide, line: number): boolean {
  return diffLines(patch).some((entry) => entry.side === side && entry.line === line);
}

/** The right-side line at a legacy `position`, or undefined when it names none. */
export function lineAtPosition(patch: string, position: number): { side: DiffSide; line: number } | undefined {
  const lines = diffLines(patch).filter((entry) => entry.position === position);
  const found = lines.find((entry) => entry.side === 'RIGHT') ?? lines[0];
  return found ? { side: found.side, line: found.line } : undefined;
}

/** The text of a review comment's ```suggestion block, when it has one. */
export function suggestionOf(body: string): string | undefined {
  const match = /```suggestion[^\n]*\n([\s\S]*?)```/.exec(body);
  return match ? match[1].replace(/\n$/, '') : undefined;
}
