import { createHash, randomUUID } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { defaultPayloadConverter } from '@temporalio/common';
import { startMoto, MOTO_CREDENTIALS, MOTO_REGION, type MotoServer } from '../../test/helpers/moto';
import { ClaimCheckCodec, isReference, parseReference } from './claim-check-codec';
import { S3Store } from './s3-store';

const keyOf = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The S3 claim-check store against moto's S3 server: the real wire protocol (SigV4, path-style). */
describe('S3Store', () => {
  let moto: MotoServer;
  let raw: S3Client;
  const bucket = `payloads-${randomUUID().slice(0, 8)}`;
  const store = (overrides: Partial<ConstructorParameters<typeof S3Store>[0]> = {}) =>
    new S3Store({
      bucket,
      prefix: 'sb/payloads/',
      endpoint: moto.endpoint,
      region: MOTO_REGION,
      forcePathStyle: true,
      credentials: MOTO_CREDENTIALS,
      ...overrides,
    });

  beforeAll(async () => {
    moto = await startMoto();
    await moto.createBucket(bucket);
    raw = new S3Client({ endpoint: moto.endpoint, region: MOTO_REGION, forcePathStyle: true, credentials: MOTO_CREDENTIALS });
  });
  afterAll(async () => {
    raw?.destroy();
    await moto?.stop();
  });

  it('puts and gets by content address under <prefix><first two hex>/<hex>; head gives the size', async () => {
    const s3 = store();
    const bytes = new TextEncoder().encode('z'.repeat(20_000));
    const key = keyOf(bytes);
    const hex = key.slice('sha256:'.length);
    expect(await s3.head(key)).toBeUndefined();
    await s3.put(key, bytes);
    expect(await s3.head(key)).toBe(bytes.length);
    expect(Buffer.from(await s3.get(key))).toEqual(Buffer.from(bytes));
    expect(await moto.listKeys(bucket, 'sb/payloads/')).toContain(`sb/payloads/${hex.slice(0, 2)}/${hex}`);
    // A second put of the same payload is a no-op, not an error.
    await s3.put(key, bytes);
    s3.close();
  });

  it('skips a put when a recent object of the same size is there, and rewrites an old one or one of another size', async () => {
    const s3 = store();
    const bytes = new TextEncoder().encode('payload-'.repeat(100));
    const key = keyOf(bytes);
    const objectKey = s3.objectKey(key);
    // Something else of the same length already stands there: HEAD says present, so no PUT.
    const sameSize = new TextEncoder().encode('P'.repeat(bytes.length));
    await raw.send(new PutObjectCommand({ Bucket: bucket, Key: objectKey, Body: sameSize }));
    await s3.put(key, bytes);
    // What the bucket holds, read without a cache.
    const bucketHolds = async () => Buffer.from(await store({ cacheBytes: 0 }).get(key));
    expect(await bucketHolds()).toEqual(Buffer.from(sameSize));
    // Past refreshAfterMs the same-size object is rewritten, so its age follows its newest use.
    const refreshing = store({ refreshAfterMs: 0 });
    await refreshing.put(key, bytes);
    expect(await bucketHolds()).toEqual(Buffer.from(bytes));
    refreshing.close();
    // A truncated object (another size) is replaced.
    await raw.send(new PutObjectCommand({ Bucket: bucket, Key: objectKey, Body: bytes.slice(0, 10) }));
    await s3.put(key, bytes);
    expect(await bucketHolds()).toEqual(Buffer.from(bytes));
    s3.close();
  });

  it('names the bucket and the object key when a payload is missing, and the bucket when it does not exist', async () => {
    const s3 = store();
    const key = keyOf(new TextEncoder().encode(randomUUID()));
    await expect(s3.get(key)).rejects.toThrow(
      new RegExp(`claim-check payload ${key} is missing from the bucket ${bucket} \\(key ${s3.objectKey(key).replace(/\//g, '\\/')}\\)`),
    );
    const nowhere = store({ bucket: 'no-such-bucket-here' });
    await expect(nowhere.put(key, new Uint8Array(3))).rejects.toThrow(
      /the bucket no-such-bucket-here at .*: writing .* failed: .*(NoSuchBucket|bucket does not exist)/,
    );
    await expect(nowhere.get(key)).rejects.toThrow(/the bucket no-such-bucket-here .*: reading .* failed/);
    nowhere.close();
    s3.close();
  });

  it('fails in one line naming the store when the endpoint does not answer', async () => {
    const s3 = store({ endpoint: 'http://127.0.0.1:9' });
    const error = await s3.get(keyOf(new Uint8Array(1))).then(
      () => undefined,
      (thrown: Error) => thrown,
    );
    expect(error?.message).toMatch(/^the bucket .* at http:\/\/127\.0\.0\.1:9 \(prefix "sb\/payloads\/"\): reading .* failed: /);
    expect(error?.message).not.toContain('\n');
    s3.close();
  });

  it('carries the claim-check codec: a second store instance (another process) decodes what the first encoded', async () => {
    const writer = new ClaimCheckCodec(store(), 1_024);
    const reader = new ClaimCheckCodec(store(), 1_024);
    const large = defaultPayloadConverter.toPayload({ text: 'q'.repeat(40_000) });
    const [reference] = await writer.encode([large]);
    expect(isReference(reference)).toBe(true);
    expect(reference.data!.length).toBeLessThan(200);
    const [decoded] = await reader.decode([reference]);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ text: 'q'.repeat(40_000) });
    // Tampered in the bucket: a process that has not read it yet refuses it, naming the bucket.
    const { claimCheck } = parseReference(reference);
    await raw.send(new PutObjectCommand({ Bucket: bucket, Key: store().objectKey(claimCheck), Body: 'tampered' }));
    const late = new ClaimCheckCodec(store(), 1_024);
    await expect(late.decode([reference])).rejects.toThrow(new RegExp(`${claimCheck} in the bucket ${bucket} .* is corrupt`));
    // The readers that hold the verified payload in memory still answer; the corrupt copy was not kept.
    expect(defaultPayloadConverter.fromPayload((await reader.decode([reference]))[0])).toEqual({ text: 'q'.repeat(40_000) });
    await expect(late.decode([reference])).rejects.toThrow(/is corrupt/);
  });

  it('serves payloads it wrote or read lately from memory: no GET for what it just encoded', async () => {
    const s3 = store();
    const bytes = new TextEncoder().encode(randomUUID().repeat(500));
    const key = keyOf(bytes);
    await s3.put(key, bytes);
    await raw.send(new DeleteObjectCommand({ Bucket: bucket, Key: s3.objectKey(key) }));
    expect(Buffer.from(await s3.get(key))).toEqual(Buffer.from(bytes));
    await expect(store().get(key)).rejects.toThrow(/is missing from the bucket/);
    await expect(store({ cacheBytes: 0 }).get(key)).rejects.toThrow(/is missing from the bucket/);
    s3.close();
  });

  it('probes: writes and reads back <prefix>doctor-probe', async () => {
    const s3 = store({ prefix: 'probe-test/' });
    await s3.probe();
    expect(await moto.listKeys(bucket, 'probe-test/')).toEqual(['probe-test/doctor-probe']);
    s3.close();
  });
});
