import { createServer, request, type Server } from 'node:http';
import { freePort } from '../../../test/helpers/ports';
import { type DoorGrant } from './door-grant';
import { FLUSH_PKT, pktLine } from './pkt-line';
import { DEFAULT_PUSH_POLICY, judgePush, type PushDecision } from './receive-pack';

const grant: DoorGrant = { network: true, allow: [], identity: 'write', repo: 'acme/app', refs: { own: ['switchboard/x'] } };

/**
 * git's probe (remote-curl.c probe_rpc): before it streams a push over http.postBuffer chunked, it
 * POSTs a body of exactly one flush and needs a 200. The door passes that body, and only that body.
 */
describe('what the door decides for a receive-pack body', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    server = createServer((req, res) => {
      void judgePush(req, grant, 'acme/app', DEFAULT_PUSH_POLICY).then((decision: PushDecision) => {
        req.resume();
        res.end(
          JSON.stringify(decision.forward ? { forward: true, read: decision.read.toString('latin1') } : { summary: decision.summary }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** POSTs `parts` (chunked when more than one, as git streams a large push) and reads the decision. */
  const post = (parts: Buffer[]) =>
    new Promise<{ forward?: boolean; read?: string; summary?: string }>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: parts.length === 1 ? { 'content-length': parts[0].length } : {},
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      });
      req.on('error', reject);
      for (const part of parts) req.write(part);
      req.end();
    });

  test('a body of one flush is the probe: forwarded as it is', async () => {
    expect(await post([FLUSH_PKT])).toEqual({ forward: true, read: '0000' });
  });

  test('a flush followed by anything is no probe: it updates no ref, and is refused', async () => {
    const update = pktLine(`${'a'.repeat(40)} ${'b'.repeat(40)} refs/heads/main\0report-status`);
    for (const parts of [[Buffer.concat([FLUSH_PKT, FLUSH_PKT])], [FLUSH_PKT, update, FLUSH_PKT], [Buffer.from('0000PACK')]])
      expect(await post(parts)).toEqual({ summary: 'the push request updates no ref' });
  });
});
