import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { ClaimCheckCodec, parseReference } from '../infra/payloads/claim-check-codec';
import { DirectoryStore } from '../infra/payloads/directory-store';
import { formatDuration, parseDuration, pruneDirectory } from './payload-prune';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('pruning a claim-check folder', () => {
  let dir: string;
  let codec: ClaimCheckCodec;
  const now = new Date();
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'claim-check-prune-'));
    codec = new ClaimCheckCodec(new DirectoryStore(dir), 1_024);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes a payload through the codec and returns its file; `ageMs` sets its mtime back. */
  async function blob(text: string, ageMs = 0): Promise<string> {
    return (await written(text, ageMs)).file;
  }

  async function written(text: string, ageMs = 0) {
    const [reference] = await codec.encode([defaultPayloadConverter.toPayload(text.repeat(2_000))]);
    const hex = parseReference(reference).claimCheck.slice('sha256:'.length);
    const file = join(dir, hex.slice(0, 2), hex);
    const when = new Date(now.getTime() - ageMs);
    utimesSync(file, when, when);
    return { file, reference };
  }

  it('a payload written again gets a fresh mtime, so it stays', async () => {
    const file = await blob('again', 10 * DAY);
    expect(statSync(file).mtimeMs).toBeLessThan(now.getTime() - 9 * DAY);
    await blob('again');
    expect(statSync(file).mtimeMs).toBeGreaterThan(now.getTime() - HOUR);
    const report = await pruneDirectory({ dir, cutoff: new Date(now.getTime() - DAY), now, dryRun: false });
    expect(report.deleted.files).toBe(0);
    expect(report.kept.files).toBe(1);
  });

  it('deletes blobs older than the cutoff, keeps younger ones and in-flight .partial files, and counts bytes', async () => {
    const { file: old, reference: oldReference } = await written('old', 3 * DAY);
    const { file: young, reference: youngReference } = await written('young', HOUR);
    const folder = join(dir, 'ab');
    mkdirSync(folder, { recursive: true });
    const stalePartial = join(folder, `${'ab'.repeat(32)}.1b4e28ba-2fa1-11d2-883f-0016d3cca427.partial`);
    const freshPartial = join(folder, `${'ab'.repeat(32)}.6fa459ea-ee8a-3ca4-894e-db77e160355e.partial`);
    writeFileSync(stalePartial, 'half');
    writeFileSync(freshPartial, 'half a write');
    utimesSync(stalePartial, new Date(now.getTime() - 2 * HOUR), new Date(now.getTime() - 2 * HOUR));
    // A .partial file 50 minutes old may still be a write in flight, even with a cutoff of 1 minute.
    utimesSync(freshPartial, new Date(now.getTime() - 50 * 60_000), new Date(now.getTime() - 50 * 60_000));
    const oldBytes = statSync(old).size;

    const dry = await pruneDirectory({ dir, cutoff: new Date(now.getTime() - 60_000 - DAY), now, dryRun: true });
    expect(dry.deleted).toEqual({ files: 1, bytes: oldBytes });
    expect(statSync(old).isFile()).toBe(true);
    expect(readdirSync(folder)).toHaveLength(2);

    const report = await pruneDirectory({ dir, cutoff: new Date(now.getTime() - DAY), now, dryRun: false });
    expect(report.deleted).toEqual({ files: 1, bytes: oldBytes });
    expect(report.kept).toEqual({ files: 1, bytes: statSync(young).size });
    expect(report.stalePartials).toEqual({ files: 1, bytes: 4 });
    expect(report.inFlightPartials).toEqual({ files: 1, bytes: 12 });
    expect(() => statSync(old)).toThrow();
    expect(readdirSync(folder)).toEqual([freshPartial.split('/').pop()]);
    // What is left still decodes; what was pruned says it is missing.
    await expect(codec.decode([youngReference])).resolves.toHaveLength(1);
    await expect(codec.decode([oldReference])).rejects.toThrow(/is missing from the folder/);
  });

  it('finishes a prune that stopped after setting a blob aside: an old one goes, a fresh one comes back', async () => {
    const old = await blob('set-aside-old', 3 * DAY);
    const fresh = await blob('set-aside-fresh', HOUR);
    for (const file of [old, fresh]) {
      const times = statSync(file);
      renameSync(file, `${file}.0f8fad5b-d9cb-469f-a165-70867728950e.pruning`);
      utimesSync(`${file}.0f8fad5b-d9cb-469f-a165-70867728950e.pruning`, times.atime, times.mtime);
    }
    await pruneDirectory({ dir, cutoff: new Date(now.getTime() - DAY), now, dryRun: false });
    expect(readdirSync(join(dir, fresh.split('/').slice(-2)[0]))).toContain(fresh.split('/').pop());
    expect(statSync(fresh).isFile()).toBe(true);
    expect(readdirSync(join(dir, old.split('/').slice(-2)[0])).filter((name) => name.startsWith(old.split('/').pop()!))).toEqual([]);
  });

  it('ignores files that are not claim-check blobs', async () => {
    writeFileSync(join(dir, 'README'), 'not a blob');
    mkdirSync(join(dir, 'zz'));
    writeFileSync(join(dir, 'zz', 'x'.repeat(64)), 'not a blob either');
    utimesSync(join(dir, 'README'), new Date(0), new Date(0));
    const report = await pruneDirectory({ dir, cutoff: now, now, dryRun: false });
    expect(report.deleted.files + report.kept.files).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['README', 'zz']);
  });

  it('reads and prints durations', () => {
    expect(parseDuration('36h')).toBe(36 * HOUR);
    expect(parseDuration('2w')).toBe(14 * DAY);
    expect(() => parseDuration('1 day')).toThrow(/--older-than: expected a duration like 36h/);
    expect(() => parseDuration('0d')).toThrow(/--older-than/);
    expect(formatDuration(DAY + 3 * HOUR)).toBe('1d 3h');
    expect(formatDuration(45 * 60_000)).toBe('45m');
  });
});
