import { defaultPayloadConverter, type Payload, type PayloadConverter } from '@temporalio/common';
import { decode } from '@temporalio/common/lib/encoding';
import { UndecodablePayload } from './contracts/undecodable-payload';

/**
 * What the worker's claim-check codec (infra/payloads/claim-check-codec.ts) leaves in place of a
 * reference its store cannot resolve; the payload's data says why, in words.
 */
export const UNRESOLVED_CLAIM_CHECK_ENCODING = 'binary/switchboard-claim-check-unresolved';

/**
 * The workflow bundle's payload converter (infra/build-bundle.ts): the SDK's default, except
 * that a payload it cannot decode becomes an `UndecodablePayload` instead of an error. The SDK
 * decodes a signal's or update's input before any handler or validator runs, and a decoding
 * error there fails the workflow task on every retry: one bad `temporal workflow signal` by
 * hand would wedge the workflow for good. Encoding is unchanged, so clients keep the default.
 */
class TolerantPayloadConverter implements PayloadConverter {
  toPayload<T>(value: T): Payload {
    return defaultPayloadConverter.toPayload(value);
  }

  fromPayload<T>(payload: Payload): T {
    const encoding = payload.metadata?.encoding ? decode(payload.metadata.encoding) : undefined;
    if (encoding === UNRESOLVED_CLAIM_CHECK_ENCODING)
      return new UndecodablePayload('binary/switchboard-claim-check', decode(payload.data ?? new Uint8Array())) as T;
    try {
      return defaultPayloadConverter.fromPayload<T>(payload);
    } catch (error) {
      return new UndecodablePayload(encoding ?? '(none)', error instanceof Error ? error.message : String(error)) as T;
    }
  }
}

export const payloadConverter: PayloadConverter = new TolerantPayloadConverter();
