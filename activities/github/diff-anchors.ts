import type { ReviewLineComment } from '../../workflows/contracts/github';

/**
 * Which review comments GitHub will take on the lines they name: a comment sits on a line of
 * its file's diff (an added or context line on the RIGHT, a removed or context line on the
 * LEFT); one on several lines needs its first line there too, on the same side and in the same
 * hunk. Anything else
 * (a file the PR does not change, a line outside every hunk, a binary file with no patch) goes
 * in the review's body instead. Pure: the review activity calls it with the PR's files.
 */
export function anchorComments(
  files: Array<{ path: string; patch?: string }>,
  comments: readonly ReviewLineComment[],
): { inline: ReviewLineComment[]; outside: ReviewLineComment[] } {
  const sides = new Map(files.map((file) => [file.path, file.patch ? commentableLines(file.patch) : undefined]));
  const inline: ReviewLineComment[] = [];
  const outside: ReviewLineComment[] = [];
  for (const comment of comments) {
    const lines = sides.get(comment.path);
    const side = comment.side ?? 'RIGHT';
    const fits =
      lines !== undefined &&
      lines[side].has(comment.line) &&
      (comment.startLine === undefined ||
        (comment.startLine < comment.line && lines[side].get(comment.startLine) === lines[side].get(comment.line)));
    (fits ? inline : outside).push(comment);
  }
  return { inline, outside };
}

/** The lines of a unified diff a comment may sit on, by side (new-file numbers on the right, old-file on the left), each with its hunk. */
export function commentableLines(patch: string): { RIGHT: Map<number, number>; LEFT: Map<number, number> } {
  const right = new Map<number, number>();
  const left = new Map<number, number>();
  let oldLine = 0;
  let newLine = 0;
  let hunks = 0;
  let inHunk = false;
  for (const text of patch.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      [oldLine, newLine, inHunk] = [Number(hunk[1]), Number(hunk[2]), true];
      hunks += 1;
      continue;
    }
    if (!inHunk || text.startsWith('\\')) continue;
    const mark = text[0];
    if (mark === '+') right.set(newLine++, hunks);
    else if (mark === '-') left.set(oldLine++, hunks);
    else if (mark === ' ' || text === '') {
      right.set(newLine++, hunks);
      left.set(oldLine++, hunks);
    }
  }
  return { RIGHT: right, LEFT: left };
}
