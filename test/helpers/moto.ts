import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { projectRoot } from '../../infra/paths';
import { freePort } from './ports';

/** The moto version `npm test` provisions into `.moto/` (scripts/provision-moto.js holds the one pin). */
export const MOTO_VERSION = (createRequire(__filename)('../../scripts/provision-moto.js') as { MOTO_VERSION: string }).MOTO_VERSION;
const INSTALL = `node scripts/provision-moto.js (or: python3 -m pip install --target .moto "moto[server]==${MOTO_VERSION}")`;

/** Any credentials do for moto; they are passed the way a deployment passes them (the AWS environment). */
export const MOTO_CREDENTIALS = { accessKeyId: 'switchboard-test', secretAccessKey: 'switchboard-test-secret' };
export const MOTO_REGION = 'us-east-1';

export interface MotoServer {
  /** `http://127.0.0.1:<port>`: an S3 endpoint (path-style). */
  endpoint: string;
  /** The AWS variables a worker process needs to reach it through the SDK's default chain. */
  awsEnv: Record<string, string>;
  /** Creates a bucket (operators create theirs; the store never does). */
  createBucket(name: string): Promise<void>;
  /** How many requests of each method moto has answered so far (from its request log). */
  requestCounts(): Record<string, number>;
  /** The object keys under a prefix. */
  listKeys(bucket: string, prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * Starts moto's S3 server (`python3 -m moto.server`) on a free port: a real S3 wire protocol
 * (SigV4-signed REST, path-style) for the S3 claim-check store's tests. Not installed is a
 * one-line failure naming the install command, never a skip.
 */
export async function startMoto(): Promise<MotoServer> {
  const port = await freePort();
  const target = join(projectRoot(), '.moto');
  const pythonPath = [existsSync(target) ? target : undefined, process.env.PYTHONPATH].filter(Boolean).join(':');
  const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...(pythonPath ? { PYTHONPATH: pythonPath } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  let gone = false;
  void exited.then(() => (gone = true));
  child.once('error', () => (gone = true));

  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (gone) {
      const why = /No module named[^\n]*/.exec(output)?.[0] ?? output.trim().split('\n').pop() ?? 'python3 not found';
      throw new Error(`moto (the S3 server these tests need) did not start: ${why}; install it with: ${INSTALL}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`moto did not answer on ${endpoint} within 30 s: ${output.trim().split('\n').pop() ?? ''}`);
    }
    const answered = await fetch(`${endpoint}/moto-api/`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const client = new S3Client({ endpoint, region: MOTO_REGION, forcePathStyle: true, credentials: MOTO_CREDENTIALS });
  return {
    endpoint,
    awsEnv: {
      AWS_ACCESS_KEY_ID: MOTO_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: MOTO_CREDENTIALS.secretAccessKey,
      AWS_REGION: MOTO_REGION,
    },
    requestCounts() {
      const counts: Record<string, number> = {};
      for (const [, method] of output.matchAll(/"([A-Z]+) \/[^"]* HTTP\/1\.1"/g)) counts[method] = (counts[method] ?? 0) + 1;
      return counts;
    },
    async createBucket(name) {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    async listKeys(bucket, prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys;
    },
    async stop() {
      client.destroy();
      if (gone) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
