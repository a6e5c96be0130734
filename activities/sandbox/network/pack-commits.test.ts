import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { applyDelta, descendsFrom, packCommits } from './pack-commits';

/** A throwaway repository of the test's own, and git's own packs of it (as `git push` would send them). */
function repository() {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-pack-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  const commit = (message: string, file = 'f.txt') => {
    execFileSync('sh', ['-c', `echo "${message} $RANDOM" >> ${file}`], { cwd: dir });
    git('add', '-A');
    git('commit', '-qm', message);
    return git('rev-parse', 'HEAD');
  };
  /** `git pack-objects --revs --thin` of `tip` minus `exclude`, as send-pack makes it. */
  const pack = (tip: string, exclude: string[] = [], extra: string[] = []) =>
    execFileSync('git', ['pack-objects', '--revs', '--stdout', '--thin', '--delta-base-offset', ...extra], {
      cwd: dir,
      input: `${tip}\n${exclude.map((id) => `^${id}`).join('\n')}\n`,
    });
  return { dir, git, commit, pack, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A size as git's delta header writes it (7 bits a byte, low first). */
function varint(value: number): Buffer {
  const bytes: number[] = [];
  do {
    bytes.push((value & 0x7f) | (value > 0x7f ? 0x80 : 0));
    value >>= 7;
  } while (value > 0);
  return Buffer.from(bytes);
}

/** A pack entry: the type-and-size header, then `body` (for a delta, its base reference and the deflated delta). */
function entry(type: number, size: number, body: Buffer): Buffer {
  const bytes = [(type << 4) | (size & 15) | (size > 15 ? 0x80 : 0)];
  for (let rest = size >> 4; rest > 0; rest >>= 7) bytes.push((rest & 0x7f) | (rest > 0x7f ? 0x80 : 0));
  return Buffer.concat([Buffer.from(bytes), body]);
}

describe('the commits of a pushed pack', () => {
  const repo = repository();
  afterAll(() => repo.remove());
  const options = { hash: 'sha1' as const, maxInflatedBytes: 64 * 1024 * 1024 };

  test('a fast-forward reaches the old head; a rewrite does not', () => {
    const base = repo.commit('base');
    const head = repo.commit('head');
    const next = repo.commit('next');
    const after = repo.commit('after');
    const forward = packCommits(repo.pack(after, [head]), options);
    expect(forward.ok).toBe(true);
    if (!forward.ok) return;
    expect(forward.parents.get(after)).toEqual([next]);
    expect(descendsFrom(forward.parents, after, head)).toBe('yes');
    // A branch rebuilt from base leaves head out of its history: the pack carries the whole new line down to a commit the host has.
    repo.git('checkout', '-q', '-b', 'rewrite', base);
    const rewritten = repo.commit('rewritten', 'g.txt');
    const rewrite = packCommits(repo.pack(rewritten, [head]), options);
    expect(rewrite.ok && descendsFrom(rewrite.parents, rewritten, head)).toBe('unknown');
    const orphan = repo.git('commit-tree', '-m', 'orphan', repo.git('rev-parse', 'HEAD^{tree}'));
    const fromNothing = packCommits(repo.pack(orphan), options);
    expect(fromNothing.ok && descendsFrom(fromNothing.parents, orphan, head)).toBe('no');
  });

  test('commits stored as deltas of other commits (git may write them so) are read too', () => {
    const parent = 'c'.repeat(40);
    const first = Buffer.from(`tree ${'d'.repeat(40)}\nparent ${parent}\nauthor t <t@e> 1 +0000\ncommitter t <t@e> 1 +0000\n\none\n`);
    const firstId = createHash('sha1').update(`commit ${first.length}\0`).update(first).digest('hex');
    // The second commit: the first's tree line, then its own parent (the first) and the rest copied from the first.
    const head = Buffer.from(`tree ${'d'.repeat(40)}\nparent ${firstId}\n`);
    const rest = first.subarray(first.indexOf('author'));
    const second = Buffer.concat([head, rest]);
    const secondId = createHash('sha1').update(`commit ${second.length}\0`).update(second).digest('hex');
    const delta = Buffer.concat([
      varint(first.length),
      varint(second.length),
      Buffer.from([head.length]),
      head,
      // copy: offset (1 byte), size (1 byte)
      Buffer.from([0x80 | 0x01 | 0x10, first.indexOf('author'), rest.length]),
    ]);
    const firstEntry = entry(1, first.length, deflateSync(first));
    const deltaAt = 12 + firstEntry.length;
    const pack = Buffer.concat([
      Buffer.from('PACK'),
      Buffer.from([0, 0, 0, 2, 0, 0, 0, 2]),
      firstEntry,
      entry(6, delta.length, Buffer.concat([Buffer.from([deltaAt - 12]), deflateSync(delta)])),
      Buffer.alloc(20),
    ]);
    const packed = packCommits(pack, options);
    expect(packed).toEqual({
      ok: true,
      parents: new Map([
        [firstId, [parent]],
        [secondId, [firstId]],
      ]),
    });
    expect(packed.ok && descendsFrom(packed.parents, secondId, parent)).toBe('yes');
  });

  test('refuses what is no pack, or more than it may read', () => {
    expect(packCommits(Buffer.from('not a pack at all, not at all'), options)).toMatchObject({ ok: false });
    const head = repo.git('rev-parse', 'HEAD');
    expect(packCommits(repo.pack(head), { ...options, maxInflatedBytes: 10 })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/larger than the 10 bytes/),
    });
  });

  test("git's delta instructions", () => {
    const base = Buffer.from('hello brave new world');
    // base size 21, result size 11; copy 6 bytes at 0 ("hello "), insert "there".
    const delta = Buffer.from([21, 11, 0x90, 6, 5, ...Buffer.from('there')]);
    expect(applyDelta(base, delta)?.toString()).toBe('hello there');
    expect(applyDelta(Buffer.from('short'), delta)).toBeUndefined();
  });
});
