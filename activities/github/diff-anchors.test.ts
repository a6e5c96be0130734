import { anchorComments, commentableLines } from './diff-anchors';

const PATCH = ['@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', '@@ -10,2 +10,3 @@', ' j', '+k', ' l', '\\ No newline at end of file'].join('\n');

describe('anchoring review comments on a diff', () => {
  it('reads the lines of each side', () => {
    const lines = commentableLines(PATCH);
    expect([...lines.RIGHT.keys()]).toEqual([1, 2, 3, 10, 11, 12]);
    expect([...lines.LEFT.keys()]).toEqual([1, 2, 3, 10, 11]);
    expect(lines.RIGHT.get(3)).not.toBe(lines.RIGHT.get(10));
  });

  it('keeps on their lines the comments GitHub takes there, and sends the rest to the body', () => {
    const files = [{ path: 'a.txt', patch: PATCH }, { path: 'image.png' }];
    const comment = (path: string, line: number, extra: object = {}) => ({ path, line, body: `${path}:${line}`, ...extra });
    const { inline, outside } = anchorComments(files, [
      comment('a.txt', 2),
      comment('a.txt', 2, { side: 'LEFT' }),
      comment('a.txt', 11, { startLine: 10 }),
      comment('a.txt', 5),
      comment('a.txt', 12, { startLine: 3 }),
      comment('a.txt', 3, { startLine: 3 }),
      comment('image.png', 1),
      comment('b.txt', 1),
    ]);
    expect(inline.map((c) => c.body)).toEqual(['a.txt:2', 'a.txt:2', 'a.txt:11']);
    expect(outside.map((c) => c.body)).toEqual(['a.txt:5', 'a.txt:12', 'a.txt:3', 'image.png:1', 'b.txt:1']);
  });
});
