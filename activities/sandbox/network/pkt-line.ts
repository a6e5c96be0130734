/**
 * git's pkt-line framing (gitprotocol-common): four hex digits of length (the four included),
 * then the payload; `0000` is a flush. Read as strictly as git reads it, so the door and the git
 * host see the same lines in the same bytes.
 */
export type PktRead =
  | { kind: 'data'; payload: Buffer; next: number }
  | { kind: 'flush'; next: number }
  | { kind: 'incomplete' }
  | { kind: 'invalid'; reason: string };

/** The largest pkt-line git writes or accepts (LARGE_PACKET_MAX). */
export const MAX_PKT_LENGTH = 65_520;

/** The pkt-line at `at` in `buffer`. */
export function readPkt(buffer: Buffer, at: number): PktRead {
  if (buffer.length < at + 4) return { kind: 'incomplete' };
  const hex = buffer.toString('latin1', at, at + 4);
  if (!/^[0-9a-fA-F]{4}$/.test(hex)) return { kind: 'invalid', reason: 'a malformed pkt-line length' };
  const length = Number.parseInt(hex, 16);
  if (length === 0) return { kind: 'flush', next: at + 4 };
  if (length < 4 || length > MAX_PKT_LENGTH) return { kind: 'invalid', reason: `a pkt-line of length ${length}` };
  if (buffer.length < at + length) return { kind: 'incomplete' };
  return { kind: 'data', payload: buffer.subarray(at + 4, at + length), next: at + length };
}

/** One pkt-line holding `payload`. */
export function pktLine(payload: string | Buffer): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0'), 'latin1'), data]);
}

export const FLUSH_PKT = Buffer.from('0000', 'latin1');
