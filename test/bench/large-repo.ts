import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The shape of the generated repository: a long history over a small tip. */
export interface LargeRepoShape {
  commits: number;
  /** Bytes of incompressible text each commit writes (one file of `files` rewritten). */
  bytesPerCommit: number;
  /** Files at the tip (each commit rewrites one of them). */
  files: number;
  /** Files the last commit adds (the repository's settings, its lockfile …). */
  tip: Record<string, string>;
}

const GIT_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

/**
 * A bare repository with a large history, generated with `git fast-import` (seconds per hundred
 * MB) and kept between bench runs under the bench's temp folder (`BENCH_REPO_DIR`, default
 * `<tmp>/switchboard-bench-repos`), named by its shape: a second run reuses it.
 */
export async function largeRepository(shape: LargeRepoShape): Promise<string> {
  const base = process.env.BENCH_REPO_DIR ?? join(tmpdir(), 'switchboard-bench-repos');
  const name = `large-v1-${shape.commits}x${shape.bytesPerCommit}-${shape.files}f-${hash(JSON.stringify(shape.tip))}.git`;
  const dir = join(base, name);
  if (existsSync(join(dir, 'bench-complete'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await run('git', ['init', '--bare', '--quiet', '--initial-branch=main', dir]);
  await fastImport(dir, shape);
  writeFileSync(join(dir, 'bench-complete'), new Date().toISOString());
  return dir;
}

function hash(text: string): string {
  let h = 0;
  for (const char of text) h = (h * 31 + char.charCodeAt(0)) | 0;
  return (h >>> 0).toString(16);
}

function run(file: string, args: string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${file} ${args.join(' ')}: ${err.trim()}`))));
  });
}

/** Streams the history into `git fast-import`, waiting for it to drain (the stream is hundreds of MB). */
async function fastImport(dir: string, shape: LargeRepoShape): Promise<void> {
  const child = spawn('git', ['fast-import', '--quiet', '--done'], { cwd: dir, env: GIT_ENV, stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const closed = new Promise<void>((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import failed: ${err.trim()}`)))),
  );
  const write = (chunk: string | Buffer) =>
    child.stdin.write(chunk) ? Promise.resolve() : new Promise<void>((resolve) => child.stdin.once('drain', () => resolve()));
  const data = (body: Buffer | string) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    return Buffer.concat([Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n')]);
  };
  const start = 1_600_000_000;
  for (let n = 1; n <= shape.commits; n += 1) {
    const last = n === shape.commits;
    const parts: Buffer[] = [
      Buffer.from(`commit refs/heads/main\nmark :${n}\ncommitter Bench <bench@example.invalid> ${start + n * 60} +0000\n`),
      data(`Change ${n}\n`),
      ...(n > 1 ? [Buffer.from(`from :${n - 1}\n`)] : []),
      Buffer.from(`M 100644 inline src/part-${n % shape.files}.txt\n`),
      // Random bytes as base64 text: incompressible enough that the pack is what the shape says.
      data(`${randomBytes(Math.ceil((shape.bytesPerCommit * 3) / 4)).toString('base64')}\n`),
    ];
    if (last) for (const [path, content] of Object.entries(shape.tip)) parts.push(Buffer.from(`M 100644 inline ${path}\n`), data(content));
    await write(Buffer.concat(parts));
  }
  await write('done\n');
  child.stdin.end();
  await closed;
}

/** The packed size of a bare repository, in bytes. */
export async function packedBytes(dir: string): Promise<number> {
  const out = await run('git', ['count-objects', '-v'], dir);
  return Number(/size-pack: (\d+)/.exec(out)?.[1] ?? 0) * 1024;
}

export async function commitCount(dir: string): Promise<number> {
  return Number((await run('git', ['rev-list', '--count', 'main'], dir)).trim());
}

/** Makes a repository of the local GitHub serve a generated one: its objects borrowed, its branch set. */
export async function serveFrom(servedDir: string, generated: string): Promise<void> {
  writeFileSync(join(servedDir, 'objects', 'info', 'alternates'), `${join(generated, 'objects')}\n`);
  const main = (await run('git', ['rev-parse', 'main'], generated)).trim();
  await run('git', ['update-ref', 'refs/heads/main', main], servedDir);
}

/** A timed `git clone` (plain or partial) on the host: the floor. */
export async function timedClone(url: string, into: string, extra: string[] = []): Promise<number> {
  const started = performance.now();
  await run('git', ['clone', '--quiet', ...extra, url, into]);
  const took = performance.now() - started;
  rmSync(into, { recursive: true, force: true });
  return took;
}
