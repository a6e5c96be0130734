import { readPkt } from './pkt-line';

/** One ref update of a push: `<old-id> <new-id> <ref>` (gitprotocol-pack, "Reference Update Request"). */
export interface RefUpdate {
  oldId: string;
  newId: string;
  ref: string;
}

/** What a receive-pack request asks before its pack: the updates, the client's capabilities, where the pack starts. */
export interface PushRequestHead {
  updates: RefUpdate[];
  capabilities: string[];
  /** Offset of the pack (after the commands and any push options) in the body. */
  packOffset: number;
}

export type PushHeadParse = { ok: true; head: PushRequestHead } | { ok: false; incomplete: true } | { ok: false; reason: string };

/** More commands than this in one push are refused (a run pushes a branch or two). */
export const MAX_REF_UPDATES = 100;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const COMMAND = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) ([^\0\n]+)\n?$/;

/** A ref name git itself would accept (check_refname_format, for names under refs/). */
export function validRefName(ref: string): boolean {
  if (!ref.startsWith('refs/') || ref.length > 1024) return false;
  // Control characters, space and git's special characters; `..`, `@{`, a trailing `.` or `/`, `//`, `.lock` parts.
  if ([...ref].some((char) => char.charCodeAt(0) <= 0x20 || char.charCodeAt(0) === 0x7f)) return false;
  if (/[~^:?*[\\]/.test(ref) || ref.includes('..') || ref.includes('@{') || ref.includes('//')) return false;
  if (ref.endsWith('/') || ref.endsWith('.') || ref === 'refs/') return false;
  return ref.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}

/**
 * Reads the head of a `git-receive-pack` request body (the update commands, then push options
 * when the client announced them), as the git host will read it. `incomplete` asks for more of
 * the body; anything git would not take, or that the door does not judge (a signed push), is a
 * reason to refuse the push whole.
 */
export function parsePushHead(body: Buffer): PushHeadParse {
  let at = 0;
  const updates: RefUpdate[] = [];
  let capabilities: string[] = [];
  for (;;) {
    const pkt = readPkt(body, at);
    if (pkt.kind === 'incomplete') return { ok: false, incomplete: true };
    if (pkt.kind === 'invalid') return { ok: false, reason: `the push request has ${pkt.reason}` };
    at = pkt.next;
    if (pkt.kind === 'flush') break;
    // Ref names are bytes to git and UTF-8 to GitHub (and to the branch names a run owns): read them as
    // UTF-8, and refuse a name that is not, rather than compare it in another encoding.
    let line: string;
    try {
      line = UTF8.decode(pkt.payload);
    } catch {
      return { ok: false, reason: 'the push request has a line that is not UTF-8 (ref names are compared as UTF-8)' };
    }
    if (updates.length === 0 && line.startsWith('shallow ')) continue;
    if (updates.length === 0) {
      if (line.startsWith('push-cert')) return { ok: false, reason: 'signed pushes (push certificates) are not taken through this door' };
      const nul = line.indexOf('\0');
      if (nul >= 0) {
        capabilities = line
          .slice(nul + 1)
          .replace(/\n$/, '')
          .split(' ')
          .filter(Boolean);
        line = line.slice(0, nul);
      }
    }
    const match = COMMAND.exec(line);
    if (!match) return { ok: false, reason: 'the push request has a line that is not a ref update' };
    const [, oldId, newId, ref] = match;
    if (oldId.length !== newId.length) return { ok: false, reason: 'the push request mixes object formats' };
    if (!validRefName(ref)) return { ok: false, reason: `${JSON.stringify(ref)} is not a valid ref name` };
    updates.push({ oldId, newId, ref });
    if (updates.length > MAX_REF_UPDATES) return { ok: false, reason: `a push may update at most ${MAX_REF_UPDATES} refs` };
  }
  if (updates.length === 0) return { ok: false, reason: 'the push request updates no ref' };
  if (capabilities.includes('push-options')) {
    for (;;) {
      const pkt = readPkt(body, at);
      if (pkt.kind === 'incomplete') return { ok: false, incomplete: true };
      if (pkt.kind === 'invalid') return { ok: false, reason: `the push request has ${pkt.reason}` };
      at = pkt.next;
      if (pkt.kind === 'flush') break;
    }
  }
  return { ok: true, head: { updates, capabilities, packOffset: at } };
}

export const isZeroId = (id: string) => /^0+$/.test(id);
