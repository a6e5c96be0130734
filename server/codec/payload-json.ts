import { type Payload } from '@temporalio/common';
import { z } from 'zod';

/** Standard base64 (what Temporal's JSON uses for bytes); base64url is read too. */
const Base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'base64');

/**
 * A payload as the remote-codec protocol carries it: proto3 JSON, bytes as base64. Fields we do
 * not know are kept, so a payload we leave alone goes back exactly as it came.
 */
export const PayloadJsonSchema = z.looseObject({
  metadata: z.record(z.string(), Base64).optional().describe('Metadata values, base64.'),
  data: Base64.optional().describe('The payload bytes, base64.'),
});

export const PayloadsBodySchema = z
  .object({ payloads: z.array(PayloadJsonSchema).describe('The payloads to encode or decode, in order.') })
  .strict();

export type PayloadJson = z.infer<typeof PayloadJsonSchema>;

export function payloadFromJson(json: PayloadJson): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [key, value] of Object.entries(json.metadata ?? {})) metadata[key] = Buffer.from(value, 'base64');
  return { metadata, data: Buffer.from(json.data ?? '', 'base64') };
}

export function payloadToJson(payload: Payload): PayloadJson {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {})) metadata[key] = Buffer.from(value ?? []).toString('base64');
  return { metadata, data: Buffer.from(payload.data ?? []).toString('base64') };
}
