import { createHash } from 'node:crypto';
import { type Payload, type PayloadCodec, type SerializationContext } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { UNRESOLVED_CLAIM_CHECK_ENCODING } from '../../workflows/payload-converter';

/** The encoding of a payload that stands for a larger one kept in a claim-check store. */
export const CLAIM_CHECK_ENCODING = 'binary/switchboard-claim-check';

/** Where the full payloads live, by content address (`sha256:<hex>`). */
export interface ClaimCheckStore {
  /** Stores the bytes under the key; storing the same key twice is a no-op. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes stored under the key; throws a clear error when they are missing. */
  get(key: string): Promise<Uint8Array>;
  /** Names the store in errors and docs (a folder, a bucket). */
  readonly description: string;
}

/** A store has no bytes under the key (never written, or deleted): no retry will find them. */
export class ClaimCheckMissingError extends Error {
  override readonly name = 'ClaimCheckMissingError';
}

/** What history holds in place of a large payload: readable JSON (through a codec endpoint or by hand). */
export interface ClaimCheckReference {
  claimCheck: string;
  bytes: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A payload codec that moves every payload larger than `thresholdBytes` out of history into a
 * content-addressed store and leaves a small reference in its place (the claim-check
 * pattern). Content addressing keeps it deterministic: the same payload always gives the
 * same reference, so a retried or replayed task writes the same history.
 */
export class ClaimCheckCodec implements PayloadCodec {
  constructor(
    private readonly store: ClaimCheckStore,
    readonly thresholdBytes: number,
    private readonly options: {
      /**
       * The worker's codec: a reference the store cannot resolve (missing or corrupt bytes) in a
       * workflow's payloads becomes a payload the workflow cannot decode, so its input checks drop
       * the signal or refuse the update it came in, instead of every workflow task failing on it.
       * Anyone can send a well-formed reference by hand (`temporal workflow signal --input-meta
       * encoding=…`). An activity's payloads still throw (ours, never sent by hand), and so does a
       * store that cannot answer now (a retry may find the bytes). Clients keep throwing: a person
       * reading a result should hear which key is missing from where.
       */
      unresolved?: 'throw' | 'mark';
    } = {},
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => this.encodeOne(payload)));
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => this.decodeOne(payload, context)));
  }

  private async encodeOne(payload: Payload): Promise<Payload> {
    const size = (payload.data?.length ?? 0) + metadataSize(payload);
    if (size <= this.thresholdBytes || isReference(payload)) return payload;
    const bytes = temporal.api.common.v1.Payload.encode(payload).finish();
    const key = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    await this.store.put(key, bytes);
    const reference: ClaimCheckReference = { claimCheck: key, bytes: bytes.length };
    return { metadata: { encoding: encoder.encode(CLAIM_CHECK_ENCODING) }, data: encoder.encode(JSON.stringify(reference)) };
  }

  private async decodeOne(payload: Payload, context: SerializationContext | undefined): Promise<Payload> {
    if (!isReference(payload)) return payload;
    let reference: ClaimCheckReference;
    try {
      reference = parseReference(payload);
    } catch {
      // Not a reference this codec ever wrote (sent by hand with our encoding): left as it is, so the
      // workflow's payload converter sees an encoding it cannot decode and the input checks refuse
      // it, rather than the workflow task failing on every retry.
      return payload;
    }
    const marks = this.options.unresolved === 'mark' && context?.type !== 'activity';
    let bytes: Uint8Array;
    try {
      bytes = await this.store.get(reference.claimCheck);
    } catch (error) {
      if (marks && error instanceof ClaimCheckMissingError)
        return unresolved(`its reference ${reference.claimCheck} is not in the payload store`);
      throw error;
    }
    const actual = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    if (actual !== reference.claimCheck) {
      if (marks) return unresolved(`its reference ${reference.claimCheck} holds other bytes in the payload store`);
      throw new Error(
        `claim-check payload ${reference.claimCheck} in ${this.store.description} is corrupt (its content hashes to ${actual})`,
      );
    }
    return temporal.api.common.v1.Payload.decode(bytes);
  }
}

export function isReference(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && decoder.decode(encoding) === CLAIM_CHECK_ENCODING;
}

export function parseReference(payload: Payload): ClaimCheckReference {
  const parsed = JSON.parse(decoder.decode(payload.data ?? new Uint8Array())) as Partial<ClaimCheckReference>;
  if (typeof parsed.claimCheck !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(parsed.claimCheck)) {
    throw new Error(`a claim-check payload holds no valid reference: ${decoder.decode(payload.data ?? new Uint8Array()).slice(0, 200)}`);
  }
  return { claimCheck: parsed.claimCheck, bytes: Number(parsed.bytes) };
}

/** A payload the workflow's converter turns into an `UndecodablePayload` saying why (workflows/payload-converter.ts). */
function unresolved(reason: string): Payload {
  return { metadata: { encoding: encoder.encode(UNRESOLVED_CLAIM_CHECK_ENCODING) }, data: encoder.encode(reason) };
}

function metadataSize(payload: Payload): number {
  let size = 0;
  for (const [key, value] of Object.entries(payload.metadata ?? {})) size += key.length + (value?.length ?? 0);
  return size;
}
