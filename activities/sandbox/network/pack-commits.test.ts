import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { applyDelta, descendsFrom, MAX_PACK_OBJECTS, OBJECT_COST_BYTES, packCommits } from './pack-commits';

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

  test('a fast-forward reaches the old head; a rewrite does not', async () => {
    const base = repo.commit('base');
    const head = repo.commit('head');
    const next = repo.commit('next');
    const after = repo.commit('after');
    const forward = await packCommits(repo.pack(after, [head]), options);
    expect(forward.ok).toBe(true);
    if (!forward.ok) return;
    expect(forward.parents.get(after)).toEqual([next]);
    expect(descendsFrom(forward.parents, after, head)).toBe('yes');
    // A branch rebuilt from base leaves head out of its history: the pack carries the whole new line down to a commit the host has.
    repo.git('checkout', '-q', '-b', 'rewrite', base);
    const rewritten = repo.commit('rewritten', 'g.txt');
    const rewrite = await packCommits(repo.pack(rewritten, [head]), options);
    expect(rewrite.ok && descendsFrom(rewrite.parents, rewritten, head)).toBe('unknown');
    const orphan = repo.git('commit-tree', '-m', 'orphan', repo.git('rev-parse', 'HEAD^{tree}'));
    const fromNothing = await packCommits(repo.pack(orphan), options);
    expect(fromNothing.ok && descendsFrom(fromNothing.parents, orphan, head)).toBe('no');
  });

  test('commits stored as deltas of other commits (git may write them so) are read too', async () => {
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
    const packed = await packCommits(pack, options);
    expect(packed).toEqual({
      ok: true,
      parents: new Map([
        [firstId, [parent]],
        [secondId, [firstId]],
      ]),
      stats: { objects: 2, deltaVisits: 1 },
    });
    expect(packed.ok && descendsFrom(packed.parents, secondId, parent)).toBe('yes');
  });

  test('refuses what is no pack, or more than it may read', async () => {
    expect(await packCommits(Buffer.from('not a pack at all, not at all'), options)).toMatchObject({ ok: false });
    const head = repo.git('rev-parse', 'HEAD');
    expect(await packCommits(repo.pack(head), { ...options, maxInflatedBytes: 10 })).toMatchObject({
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

/** A pack of `objects` whose header says it holds `count` (a trailer of zeros; the door does not check it). */
function packOf(objects: Buffer[], count = objects.length): Buffer {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(count, 8);
  return Buffer.concat([header, ...objects, Buffer.alloc(20)]);
}

const sha1 = (data: Buffer) => createHash('sha1').update(`commit ${data.length}\0`).update(data).digest('hex');
const commitText = (parent: string, message: string) =>
  Buffer.from(`tree ${'d'.repeat(40)}\nparent ${parent}\nauthor t <t@e> 1 +0000\ncommitter t <t@e> 1 +0000\n\n${message}\n`);

/** A delta that makes `result` from a base of `baseLength` bytes by inserting it whole. */
function insertDelta(baseLength: number, result: Buffer): Buffer {
  const inserts: Buffer[] = [];
  for (let at = 0; at < result.length; at += 127) {
    const part = result.subarray(at, at + 127);
    inserts.push(Buffer.from([part.length]), part);
  }
  return Buffer.concat([varint(baseLength), varint(result.length), ...inserts]);
}

/** A ref delta: the base's id, then the deflated delta. */
const refDelta = (baseId: string, delta: Buffer) => entry(7, delta.length, Buffer.concat([Buffer.from(baseId, 'hex'), deflateSync(delta)]));

describe('a hostile pack is bounded', () => {
  const options = { hash: 'sha1' as const, maxInflatedBytes: 64 * 1024 * 1024 };
  const emptyBlob = entry(3, 0, deflateSync(Buffer.alloc(0)));

  test('a header saying more objects than the door reads, or than the bytes can hold, is refused before any object is read', async () => {
    // What follows the header is no object at all: reading the first would refuse it for another reason.
    const garbage = Buffer.alloc(4096, 0xff);
    expect(await packCommits(packOf([garbage], 0xffffffff), options)).toEqual({
      ok: false,
      reason: `the pack holds 4294967295 objects, more than the ${MAX_PACK_OBJECTS} the door reads to check it`,
    });
    expect(await packCommits(packOf([garbage], 500_000), options)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^the pack says it holds 500000 objects, more than its \d+ bytes can$/),
    });
  });

  test('empty objects count: each costs its share of the budget, and their number is capped', async () => {
    const thousand = packOf(Array.from({ length: 1000 }, () => emptyBlob));
    expect(await packCommits(thousand, { ...options, maxInflatedBytes: 1000 * OBJECT_COST_BYTES })).toMatchObject({
      ok: true,
      stats: { objects: 1000 },
    });
    expect(await packCommits(thousand, { ...options, maxInflatedBytes: 1000 * OBJECT_COST_BYTES - 1 })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/larger than the \d+ bytes the door reads/),
    });
    expect(await packCommits(thousand, { ...options, maxObjects: 999 })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/holds 1000 objects, more than the 999/),
    });
  });

  test('a long chain of deltas in reverse order resolves with one visit per delta', async () => {
    const length = 2000;
    const commits = [commitText('c'.repeat(40), 'root')];
    for (let index = 1; index <= length; index += 1) commits.push(commitText(sha1(commits[index - 1]), `commit ${index}`));
    // Each commit a delta of the one before it, written newest first, the whole root last.
    const objects: Buffer[] = [];
    for (let index = length; index >= 1; index -= 1)
      objects.push(refDelta(sha1(commits[index - 1]), insertDelta(commits[index - 1].length, commits[index])));
    objects.push(entry(1, commits[0].length, deflateSync(commits[0])));
    const packed = await packCommits(packOf(objects), options);
    expect(packed).toMatchObject({ ok: true, stats: { objects: length + 1, deltaVisits: length } });
    expect(packed.ok && descendsFrom(packed.parents, sha1(commits[length]), 'c'.repeat(40))).toBe('yes');
  });

  test('small deltas that copy a large commit many times are refused past the budget', async () => {
    const base = commitText('c'.repeat(40), 'x'.repeat(512 * 1024));
    const baseId = sha1(base);
    // 64 KiB copies of the whole base, then a line of its own: a few dozen bytes that make half a MiB.
    const copies: Buffer[] = [];
    for (let offset = 0; offset + 0x10000 <= base.length; offset += 0x10000) copies.push(Buffer.from([0x8f, ...varintLE(offset)]));
    const whole = Math.floor(base.length / 0x10000) * 0x10000;
    const copyDelta = (index: number) => {
      const tail = Buffer.from(`${index}\n`);
      return Buffer.concat([varint(base.length), varint(whole + tail.length), ...copies, Buffer.from([tail.length]), tail]);
    };
    const objects = [
      entry(1, base.length, deflateSync(base)),
      ...Array.from({ length: 20 }, (_, index) => refDelta(baseId, copyDelta(index))),
    ];
    expect(await packCommits(packOf(objects), { ...options, maxInflatedBytes: 8 * 1024 * 1024 })).toEqual({
      ok: false,
      reason: `the pack's deltas make more than the ${8 * 1024 * 1024} bytes of commits the door reads`,
    });
    expect(await packCommits(packOf(objects), { ...options, maxInflatedBytes: 16 * 1024 * 1024 })).toMatchObject({
      ok: true,
      stats: { objects: 21, deltaVisits: 20 },
    });
  });

  test('reading a pack of many small objects gives the event loop turns', async () => {
    let turns = 0;
    const timer = setInterval(() => (turns += 1), 1);
    try {
      const packed = await packCommits(packOf(Array.from({ length: 50_000 }, () => emptyBlob)), options);
      expect(packed).toMatchObject({ ok: true, stats: { objects: 50_000 } });
    } finally {
      clearInterval(timer);
    }
    expect(turns).toBeGreaterThan(0);
  });
});

/** Four little-endian bytes, as a copy instruction's offset. */
function varintLE(value: number): number[] {
  return [value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, (value >>> 24) & 0xff];
}
