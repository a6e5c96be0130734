import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type DoorGrant } from './door-grant';
import { descendsFrom, packCommits } from './pack-commits';
import { FLUSH_PKT, pktLine } from './pkt-line';
import { parsePushHead, type RefUpdate } from './push-request';
import { DEFAULT_PUSH_RULES, judgeRefUpdate, type PushRules } from './push-rules';

/** Where the door learns the rules for a repository's pushes (the deployment's, narrowed by the repository's settings). */
export interface PushPolicy {
  rules(repo: string): Promise<PushRules>;
  /**
   * Why a pull request's head branch may not be pushed to after all (the pull request is closed or
   * its head is elsewhere now, the branch is the default or a protected one); undefined: it may.
   */
  pullRequestRefusal?(repo: string, pullRequest: number, branch: string): Promise<string | undefined>;
}

export const DEFAULT_PUSH_POLICY: PushPolicy = { rules: async () => DEFAULT_PUSH_RULES };

/** The update commands of a push are at most this long (a run pushes a branch or two). */
const MAX_HEAD_BYTES = 1024 * 1024;
/** A push that must be shown to be a fast-forward is read whole first, up to this much. */
export const MAX_CHECKED_PUSH_BYTES = 64 * 1024 * 1024;
/** A refused push's body is read and dropped (so git reads the answer), up to this much. */
const MAX_DRAINED_BYTES = 1024 * 1024 * 1024;

/** What the door does with a push: forward it (the bytes read so far first), or answer it refused. */
export type PushDecision =
  | { forward: true; read: Buffer; ended: boolean }
  | { forward: false; updates: RefUpdate[]; capabilities: string[]; reasons: Map<string, string>; summary: string };

interface BodyRead {
  buffer: Buffer;
  ended: boolean;
}

/** Reads the request body until `enough` says so, the body ends or `limit` bytes are read; the request stays paused after. */
function readUntil(req: IncomingMessage, start: Buffer, limit: number, enough?: (buffer: Buffer) => boolean): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const chunks = [start];
    let size = start.length;
    const done = (ended: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.pause();
      resolve({ buffer: Buffer.concat(chunks), ended });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit || enough?.(Buffer.concat(chunks))) done(false);
    };
    const onEnd = () => done(true);
    const onError = (error: Error) => reject(error);
    if (req.readableEnded) return resolve({ buffer: start, ended: true });
    if (start.length > 0 && enough?.(start)) return resolve({ buffer: start, ended: false });
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.resume();
  });
}

/**
 * Judges a `git-receive-pack` request before any of it reaches the git host: reads its update
 * commands, judges each against what the run owns (push-rules.ts), and for an update that must be
 * a fast-forward (a pull request's branch) reads the pack and checks that the new commit builds on
 * the branch's head. One refused update refuses the push whole.
 */
export async function judgePush(req: IncomingMessage, grant: DoorGrant, repo: string, policy: PushPolicy): Promise<PushDecision> {
  const refuseAll = (summary: string, updates: RefUpdate[] = [], capabilities: string[] = []): PushDecision => ({
    forward: false,
    updates,
    capabilities,
    reasons: new Map(updates.map((update) => [update.ref, summary])),
    summary,
  });
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') return refuseAll(`a push must not be sent with content-encoding ${encoding}`);
  let head = await readUntil(req, Buffer.alloc(0), MAX_HEAD_BYTES, (buffer) => !('incomplete' in parsePushHead(buffer)));
  if (head.buffer.equals(FLUSH_PKT)) {
    // git's probe (remote-curl's probe_rpc): before it streams a push larger than http.postBuffer
    // chunked, it POSTs a body of one flush and needs the host's 200. That body updates no ref and
    // carries no pack, so it goes to the git host as it is; anything after the flush is no probe.
    head = head.ended ? head : await readUntil(req, head.buffer, FLUSH_PKT.length + 1);
    if (head.ended && head.buffer.equals(FLUSH_PKT)) return { forward: true, read: head.buffer, ended: true };
  }
  const parsed = parsePushHead(head.buffer);
  if (!parsed.ok) return refuseAll('incomplete' in parsed ? 'the push request ended before its ref updates did' : parsed.reason);
  const { updates, capabilities, packOffset } = parsed.head;
  let rules: PushRules;
  try {
    rules = await policy.rules(repo);
  } catch (error) {
    return refuseAll(`the push rules of ${repo} could not be read (${(error as Error).message}); try again`, updates, capabilities);
  }
  const reasons = new Map<string, string>();
  const fastForwards: RefUpdate[] = [];
  for (const update of updates) {
    const judged = judgeRefUpdate(update, grant.refs, rules);
    if (!judged.allow) {
      reasons.set(update.ref, judged.reason);
      continue;
    }
    if (judged.pullRequest !== undefined && policy.pullRequestRefusal) {
      const refusal = await policy.pullRequestRefusal(repo, judged.pullRequest, update.ref.slice('refs/heads/'.length));
      if (refusal) {
        reasons.set(update.ref, refusal);
        continue;
      }
    }
    if (judged.fastForwardOnly && update.oldId !== update.newId) fastForwards.push(update);
  }
  if (reasons.size === 0 && fastForwards.length > 0) {
    const whole = head.ended ? head : await readUntil(req, head.buffer, MAX_CHECKED_PUSH_BYTES + packOffset + 1);
    if (!whole.ended)
      for (const update of fastForwards)
        reasons.set(
          update.ref,
          `the push is over ${MAX_CHECKED_PUSH_BYTES} bytes, too large for the door to check that it is a fast-forward`,
        );
    else {
      const pack = await packCommits(whole.buffer.subarray(packOffset), {
        hash: updates[0].oldId.length === 64 ? 'sha256' : 'sha1',
        maxInflatedBytes: 4 * MAX_CHECKED_PUSH_BYTES,
      });
      for (const update of fastForwards) {
        const verdict = pack.ok ? descendsFrom(pack.parents, update.newId, update.oldId) : 'unknown';
        if (verdict !== 'yes')
          reasons.set(
            update.ref,
            `${update.ref} may only be fast-forwarded, and this push ${verdict === 'no' ? 'rewrites it (a force push)' : `could not be shown to build on its head ${update.oldId.slice(0, 12)}${pack.ok ? '' : ` (${pack.reason})`}`}`,
          );
      }
      if (reasons.size === 0) return { forward: true, read: whole.buffer, ended: true };
    }
  }
  if (reasons.size === 0) return { forward: true, read: head.buffer, ended: head.ended };
  const refused = [...reasons.keys()];
  // One refused update refuses the push whole: the others are not sent either.
  for (const update of updates)
    if (!reasons.has(update.ref)) reasons.set(update.ref, `not pushed: the same push also updates ${refused[0]}, which was refused`);
  return { forward: false, updates, capabilities, reasons, summary: [...new Set(refused.map((ref) => reasons.get(ref)!))].join('; ') };
}

/**
 * Answers a refused push as git's own report (`ng <ref> <reason>`), so `git push` prints
 * `! [remote rejected] <ref> (<reason>)` and a `remote:` line naming the rule. The body is read
 * and dropped first: git reads the answer only after it has sent its pack.
 */
export async function answerRefusedPush(req: IncomingMessage, res: ServerResponse, decision: Extract<PushDecision, { forward: false }>) {
  await drain(req);
  const { capabilities, updates } = decision;
  if (!capabilities.includes('report-status') && !capabilities.includes('report-status-v2')) {
    res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'x-switchboard-refused': 'true' });
    res.end(`Switchboard refused this push: ${decision.summary}\n`);
    return;
  }
  const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ');
  const report = Buffer.concat([
    pktLine('unpack ok\n'),
    ...updates.map((update) =>
      pktLine(`ng ${update.ref} Switchboard refused: ${oneLine(decision.reasons.get(update.ref) ?? decision.summary)}\n`),
    ),
    FLUSH_PKT,
  ]);
  const sideBand = capabilities.includes('side-band-64k') ? 65_515 : capabilities.includes('side-band') ? 995 : 0;
  let body: Buffer;
  if (!sideBand) body = report;
  else {
    const packets: Buffer[] = [
      pktLine(Buffer.concat([Buffer.from([2]), Buffer.from(`Switchboard refused this push: ${oneLine(decision.summary)}\n`)])),
    ];
    for (let at = 0; at < report.length; at += sideBand)
      packets.push(pktLine(Buffer.concat([Buffer.from([1]), report.subarray(at, at + sideBand)])));
    body = Buffer.concat([...packets, FLUSH_PKT]);
  }
  res.writeHead(200, {
    'content-type': 'application/x-git-receive-pack-result',
    'cache-control': 'no-cache',
    'x-switchboard-refused': 'true',
  });
  res.end(body);
}

function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded) return resolve();
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DRAINED_BYTES) req.destroy();
    });
    req.once('end', () => resolve());
    req.once('close', () => resolve());
    req.once('error', () => resolve());
    req.resume();
  });
}
