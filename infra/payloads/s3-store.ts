import { createHash } from 'node:crypto';
import type * as S3 from '@aws-sdk/client-s3';
import { ByteCache } from './byte-cache';
import { ClaimCheckMissingError, type ClaimCheckStore } from './claim-check-codec';

type Sdk = typeof S3;
type S3Client = S3.S3Client;

export interface S3StoreOptions {
  bucket: string;
  /** Prepended verbatim to every object key (`<prefix><first two hex>/<hex>`). */
  prefix: string;
  region?: string;
  /** An S3-compatible endpoint (MinIO, R2...); AWS S3 (or AWS_ENDPOINT_URL_S3) when unset. */
  endpoint?: string;
  forcePathStyle?: boolean;
  /**
   * For tests and embedders only: a deployment leaves this unset and the SDK reads its standard
   * chain (environment, profile, web identity, instance or task role). Never from the config file.
   */
  credentials?: S3.S3ClientConfig['credentials'];
  /**
   * A put rewrites an object already there once it is older than this (default a day), so an
   * object's last-modified time is never much older than the newest history that references it
   * and an age-based lifecycle rule can be reasoned about (docs/operations.md).
   */
  refreshAfterMs?: number;
  /**
   * Payloads this process wrote or read lately are served from memory up to this many bytes
   * (default 16 MiB; 0 turns it off): the worker that encodes a model turn's input usually
   * decodes it again for the activity a moment later, and a GET is a network round trip.
   */
  cacheBytes?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The object the doctor overwrites to prove the bucket is reachable and writable. */
export const PROBE_OBJECT = 'doctor-probe';

/**
 * Claim-check payloads as objects in one S3-compatible bucket, `<prefix><first two hex>/<hex>`,
 * so workers and clients on different hosts share them without a shared mount. Objects are
 * content-addressed and written whole (S3 has no partial objects), so a repeated put is harmless
 * and a put of an object already there with the same size (and written within `refreshAfterMs`)
 * is skipped after a HEAD.
 */
export class S3Store implements ClaimCheckStore {
  readonly description: string;
  private connected?: Promise<{ sdk: Sdk; client: S3Client }>;
  private readonly cache: ByteCache;

  constructor(private readonly options: S3StoreOptions) {
    const where = options.endpoint ? ` at ${options.endpoint}` : '';
    this.description = `the bucket ${options.bucket}${where} (prefix "${options.prefix}")`;
    this.cache = new ByteCache(options.cacheBytes ?? 16 * 1024 * 1024);
  }

  /** The SDK is loaded on first use (a few hundred ms), so processes on the folder store never pay for it. */
  private connect(): Promise<{ sdk: Sdk; client: S3Client }> {
    this.connected ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        ...(this.options.region ? { region: this.options.region } : {}),
        ...(this.options.endpoint ? { endpoint: this.options.endpoint } : {}),
        ...(this.options.credentials ? { credentials: this.options.credentials } : {}),
        forcePathStyle: this.options.forcePathStyle ?? false,
        // A store that does not answer fails the codec call (and the task retries) instead of hanging it.
        requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
      }),
    }));
    return this.connected;
  }

  /** The object key of a claim-check key (`sha256:<hex>`). */
  objectKey(key: string): string {
    const hex = key.replace(/^sha256:/, '');
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`not a claim-check key: ${key}`);
    return `${this.options.prefix}${hex.slice(0, 2)}/${hex}`;
  }

  /** The stored object's size, or undefined when there is none. */
  async head(key: string): Promise<number | undefined> {
    return (await this.headObject(this.objectKey(key)))?.size;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const objectKey = this.objectKey(key);
    const present = await this.headObject(objectKey);
    const fresh = present?.modified !== undefined && Date.now() - present.modified.getTime() < (this.options.refreshAfterMs ?? DAY_MS);
    if (present?.size !== bytes.length || !fresh) await this.putObject(objectKey, bytes);
    this.cache.set(key, bytes);
  }

  async get(key: string): Promise<Uint8Array> {
    const cached = this.cache.get(key);
    if (cached) return cached;
    const objectKey = this.objectKey(key);
    const { sdk, client } = await this.connect();
    try {
      const answer = await client.send(new sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: objectKey }));
      const bytes = await answer.Body!.transformToByteArray();
      // Only what matches its address is kept: the codec refuses the rest, and a later read retries.
      if (`sha256:${createHash('sha256').update(bytes).digest('hex')}` === key) this.cache.set(key, bytes);
      return bytes;
    } catch (error) {
      if (statusOf(error) === 404 && nameOf(error) !== 'NoSuchBucket') {
        throw new ClaimCheckMissingError(
          `claim-check payload ${key} is missing from the bucket ${this.options.bucket} (key ${objectKey}): ` +
            'every worker and client must use the same payloads.s3 bucket and prefix, and objects may be deleted only after the histories that reference them',
        );
      }
      throw this.failure(`reading ${objectKey}`, error);
    }
  }

  /** Writes, reads back and compares a small object (`<prefix>doctor-probe`); throws one line when it cannot. */
  async probe(): Promise<void> {
    const objectKey = `${this.options.prefix}${PROBE_OBJECT}`;
    const sent = new TextEncoder().encode(`switchboard doctor ${new Date().toISOString()}`);
    await this.putObject(objectKey, sent);
    const { sdk, client } = await this.connect();
    let read: Uint8Array;
    try {
      const answer = await client.send(new sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: objectKey }));
      read = await answer.Body!.transformToByteArray();
    } catch (error) {
      throw this.failure(`reading ${objectKey} back`, error);
    }
    if (Buffer.compare(Buffer.from(read), Buffer.from(sent)) !== 0) {
      throw new Error(`${this.description}: ${objectKey} read back different bytes than were written`);
    }
  }

  /** Lets the process exit: the SDK keeps sockets open otherwise. */
  close(): void {
    void this.connected?.then(({ client }) => client.destroy());
  }

  private async headObject(objectKey: string): Promise<{ size?: number; modified?: Date } | undefined> {
    const { sdk, client } = await this.connect();
    try {
      const answer = await client.send(new sdk.HeadObjectCommand({ Bucket: this.options.bucket, Key: objectKey }));
      return { size: answer.ContentLength, modified: answer.LastModified };
    } catch (error) {
      // HEAD has no body, so a missing bucket looks like a missing object here, and without
      // s3:ListBucket S3 answers 403 for a missing object: either way the put that follows writes
      // it or names what is wrong.
      const status = statusOf(error);
      if (status === 404 || status === 403) return undefined;
      throw this.failure(`checking ${objectKey}`, error);
    }
  }

  private async putObject(objectKey: string, bytes: Uint8Array): Promise<void> {
    const { sdk, client } = await this.connect();
    try {
      await client.send(
        new sdk.PutObjectCommand({
          Bucket: this.options.bucket,
          Key: objectKey,
          Body: bytes,
          ContentLength: bytes.length,
          ContentType: 'application/octet-stream',
        }),
      );
    } catch (error) {
      throw this.failure(`writing ${objectKey}`, error);
    }
  }

  /** One line naming the store, what was being done and why it failed (never the SDK's stack). */
  private failure(doing: string, error: unknown): Error {
    const status = statusOf(error);
    const name = nameOf(error);
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    const code = name && name !== 'Error' && !message.includes(name) ? `${name}: ` : '';
    return new Error(`${this.description}: ${doing} failed: ${code}${message}${status ? ` (HTTP ${status})` : ''}`, { cause: error });
  }
}

/** The HTTP status of an SDK error (service errors and 404s on HEAD carry `$metadata`). */
function statusOf(error: unknown): number | undefined {
  const metadata = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata;
  return metadata?.httpStatusCode;
}

function nameOf(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}
