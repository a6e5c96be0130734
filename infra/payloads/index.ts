import { isAbsolute, join, resolve } from 'node:path';
import { type DataConverter } from '@temporalio/common';
import { type PayloadsS3Config } from '../config/payloads-section';
import { ClaimCheckCodec, type ClaimCheckStore } from './claim-check-codec';
import { DirectoryStore } from './directory-store';
import { S3Store } from './s3-store';

export { ClaimCheckCodec, ClaimCheckMissingError, CLAIM_CHECK_ENCODING, type ClaimCheckStore } from './claim-check-codec';
export { DirectoryStore } from './directory-store';
export { S3Store, type S3StoreOptions } from './s3-store';

/** The key prefix of claim-check objects when `payloads.s3.prefix` is unset. */
export const DEFAULT_S3_PREFIX = 'switchboard/payloads/';

/** What the payload settings must say (the loaded `payloads` section, or a test's literal). */
export interface PayloadSettings {
  claimCheckBytes: number;
  store?: 'directory' | 's3';
  dir?: string;
  s3?: Partial<PayloadsS3Config>;
}

type PayloadConfig = { dataDir: string; payloads: PayloadSettings };

/** The claim-check folder of a deployment: `payloads.dir` (already absolute when loaded), else `<dataDir>/payloads`. */
export function payloadsDir(config: PayloadConfig): string {
  const dir = config.payloads.dir ?? join(config.dataDir, 'payloads');
  return isAbsolute(dir) ? dir : resolve(dir);
}

/** The store `payloads.store` chooses: the folder, or the S3-compatible bucket (credentials from the AWS chain). */
export function payloadStoreFromConfig(config: PayloadConfig): ClaimCheckStore {
  const { payloads } = config;
  if (payloads.store !== 's3') return new DirectoryStore(payloadsDir(config));
  const s3 = payloads.s3 ?? {};
  // The config schema refuses store s3 without a bucket at load time; this guards a hand-built literal.
  if (!s3.bucket) throw new Error('payloads.s3.bucket: payloads.store is s3: set payloads.s3.bucket');
  return new S3Store({
    bucket: s3.bucket,
    prefix: s3.prefix ?? DEFAULT_S3_PREFIX,
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: s3.forcePathStyle ?? false,
  });
}

/**
 * The codec every worker and client of the deployment uses (they must agree). A worker's turns a
 * reference its store cannot resolve into input its workflows refuse (claim-check-codec.ts).
 */
export function payloadCodecFromConfig(config: PayloadConfig, options: { worker?: boolean } = {}): ClaimCheckCodec {
  return new ClaimCheckCodec(payloadStoreFromConfig(config), config.payloads.claimCheckBytes, {
    unresolved: options.worker ? 'mark' : 'throw',
  });
}

/** The data converter for `new Client(...)`, and with `worker` for `Worker.create(...)`. */
export function dataConverterFromConfig(config: PayloadConfig, options: { worker?: boolean } = {}): DataConverter {
  return { payloadCodecs: [payloadCodecFromConfig(config, options)] };
}
