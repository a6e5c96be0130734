import { z } from 'zod';

/** Bucket names as S3 and its compatibles (MinIO, R2) accept them. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Where claim-check payloads go when `payloads.store` is `s3`. Credentials are never here: the
 * AWS SDK reads them from its standard chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE,
 * web identity, the instance or task role).
 */
export const PayloadsS3ConfigSchema = z
  .object({
    bucket: z
      .string()
      .regex(BUCKET_NAME, 'expected an S3 bucket name (3-63 lowercase letters, digits, dots and hyphens)')
      .optional()
      .describe('The bucket every worker, server and CLI of the deployment shares (required when payloads.store is s3).'),
    prefix: z
      .string()
      .regex(/^[^/]/, 'expected a key prefix that does not start with "/"')
      .optional()
      .describe('Prepended verbatim to every object key, `<prefix><first two hex>/<hex>` (default "switchboard/payloads/").'),
    region: z.string().min(1).optional().describe('The region (default: the AWS chain, AWS_REGION or the profile).'),
    endpoint: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe('An S3-compatible endpoint (MinIO, R2, Ceph...); AWS S3 by default (or AWS_ENDPOINT_URL_S3).'),
    forcePathStyle: z
      .boolean()
      .default(false)
      .describe('Address objects as <endpoint>/<bucket>/<key> instead of <bucket>.<endpoint>/<key> (most MinIO set-ups need it).'),
  })
  .strict();

/**
 * Large payloads leave history: any payload above `claimCheckBytes` is stored by content
 * address and history keeps a reference. `store` chooses where: a folder (`dir`, the embedded
 * default; every process of the deployment must see it: one host or a shared mount) or an
 * S3-compatible bucket (`s3`, for clusters).
 */
export const PayloadsConfigSchema = z
  .object({
    claimCheckBytes: z
      .number()
      .int()
      .min(1_024)
      .max(256 * 1024)
      .default(8 * 1024)
      .describe('Payloads larger than this many bytes are kept outside history, by reference.'),
    store: z
      .enum(['directory', 's3'])
      .default('directory')
      .describe('Where claim-check payloads live: a folder (payloads.dir) or an S3-compatible bucket (payloads.s3).'),
    dir: z.string().min(1).optional().describe('The claim-check folder shared by every worker and client (default: <dataDir>/payloads).'),
    s3: PayloadsS3ConfigSchema.prefault({}),
  })
  .strict()
  .superRefine((payloads, context) => {
    if (payloads.store === 's3' && !payloads.s3.bucket) {
      context.addIssue({ code: 'custom', path: ['s3', 'bucket'], message: 'payloads.store is s3: set payloads.s3.bucket' });
    }
  });

export type PayloadsConfig = z.infer<typeof PayloadsConfigSchema>;
export type PayloadsS3Config = z.infer<typeof PayloadsS3ConfigSchema>;
