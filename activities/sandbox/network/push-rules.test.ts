import { pktLine, FLUSH_PKT } from './pkt-line';
import { parsePushHead, validRefName } from './push-request';
import { DEFAULT_PUSH_RULES, judgeRefUpdate, narrowPushRules, ownedSummary, type OwnedRefs } from './push-rules';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const Z = '0'.repeat(40);
const update = (oldId: string, newId: string, ref: string) => ({ oldId, newId, ref });

describe('a push request head', () => {
  const body = (...lines: string[]) => Buffer.concat([...lines.map((line) => pktLine(line)), FLUSH_PKT, Buffer.from('PACK')]);

  test('is read as git reads it: shallow lines skipped, capabilities after the NUL, the pack after the flush', () => {
    const parsed = parsePushHead(
      body(`shallow ${A}`, `${A} ${B} refs/heads/switchboard/x\0report-status side-band-64k\n`, `${Z} ${B} refs/tags/v1\n`),
    );
    expect(parsed).toEqual({
      ok: true,
      head: {
        updates: [update(A, B, 'refs/heads/switchboard/x'), update(Z, B, 'refs/tags/v1')],
        capabilities: ['report-status', 'side-band-64k'],
        packOffset: expect.any(Number),
      },
    });
    const raw = body(`${A} ${B} refs/heads/a\0report-status`);
    expect(parsePushHead(raw)).toMatchObject({ ok: true, head: { packOffset: raw.length - 4 } });
  });

  test('waits for more of a body cut short, and skips push options when they were announced', () => {
    const commands = Buffer.concat([pktLine(`${A} ${B} refs/heads/a\0report-status push-options`), FLUSH_PKT]);
    expect(parsePushHead(commands.subarray(0, 30))).toEqual({ ok: false, incomplete: true });
    // The options come after the commands' flush: without them the head is not whole yet.
    expect(parsePushHead(commands)).toEqual({ ok: false, incomplete: true });
    const withOptions = Buffer.concat([commands, pktLine('ci.skip'), FLUSH_PKT, Buffer.from('PACK')]);
    expect(parsePushHead(withOptions)).toMatchObject({ ok: true, head: { packOffset: withOptions.length - 4 } });
  });

  test('reads ref names as UTF-8, the encoding of GitHub’s branch names, and refuses a name that is not UTF-8', () => {
    expect(parsePushHead(body(`${A} ${B} refs/heads/switchboard/über\0report-status`))).toMatchObject({
      ok: true,
      head: { updates: [update(A, B, 'refs/heads/switchboard/über')] },
    });
    const latin1 = Buffer.concat([pktLine(Buffer.from(`${A} ${B} refs/heads/switchboard/\xfcber\0report-status`, 'latin1')), FLUSH_PKT]);
    expect(parsePushHead(latin1)).toEqual({ ok: false, reason: expect.stringMatching(/not UTF-8/) });
  });

  test.each([
    ['a signed push', body(`push-cert\0report-status`)],
    ['a line that is no update', body('hello world')],
    ['upper-case ids', body(`${A.toUpperCase()} ${B} refs/heads/a`)],
    ['a second line with capabilities', body(`${A} ${B} refs/heads/a\0report-status`, `${A} ${B} refs/heads/b\0atomic`)],
    ['a malformed length', Buffer.from('00zz')],
    ['no update at all', Buffer.concat([FLUSH_PKT])],
    ['a ref git would refuse', body(`${A} ${B} refs/heads/a..b`)],
    ['a ref with a newline inside', body(`${A} ${B} refs/heads/a\nrefs/heads/main`)],
  ])('refuses %s', (_name, raw) => {
    expect(parsePushHead(raw)).toMatchObject({ ok: false, reason: expect.any(String) });
  });

  test('ref names', () => {
    for (const good of ['refs/heads/main', 'refs/heads/switchboard/acme/app-fix', 'refs/tags/v1.0']) expect(validRefName(good)).toBe(true);
    for (const bad of [
      'HEAD',
      'refs/heads/',
      'refs/heads/a b',
      'refs/heads/.x',
      'refs/heads/x.lock',
      'refs/heads/a//b',
      'refs/heads/a@{1}',
    ])
      expect(validRefName(bad)).toBe(false);
  });
});

describe('what a run may push', () => {
  const own: OwnedRefs = { own: ['switchboard/run-1'] };
  const onPr: OwnedRefs = { own: [], pullRequest: { number: 7, head: 'feature/login' } };
  const rules = DEFAULT_PUSH_RULES;

  test('its own branch: created, updated, rewritten and deleted', () => {
    for (const [oldId, newId] of [
      [Z, B],
      [A, B],
      [A, Z],
    ])
      expect(judgeRefUpdate(update(oldId, newId, 'refs/heads/switchboard/run-1'), own, rules)).toEqual({
        allow: true,
        fastForwardOnly: false,
      });
  });

  test('the default branch, a tag, another unit’s branch, other namespaces: never, each naming the ref and the rule', () => {
    expect(judgeRefUpdate(update(A, B, 'refs/heads/main'), own, rules)).toEqual({
      allow: false,
      rule: 'not-owned',
      reason: expect.stringMatching(
        /^refs\/heads\/main is not a branch this run owns .*it may push only to refs\/heads\/switchboard\/run-1 \(its own\)$/,
      ),
    });
    expect(judgeRefUpdate(update(Z, B, 'refs/tags/v1'), own, rules)).toMatchObject({ allow: false, rule: 'tags' });
    expect(judgeRefUpdate(update(A, B, 'refs/heads/switchboard/acme/app-other'), own, rules)).toMatchObject({
      allow: false,
      rule: 'not-owned',
    });
    expect(judgeRefUpdate(update(A, Z, 'refs/heads/switchboard/acme/app-other'), own, rules)).toMatchObject({
      allow: false,
      rule: 'delete',
    });
    expect(judgeRefUpdate(update(A, B, 'refs/notes/commits'), own, rules)).toMatchObject({ allow: false, rule: 'only-branches' });
    expect(judgeRefUpdate(update(A, B, 'refs/heads/main'), undefined, rules)).toMatchObject({
      allow: false,
      reason: expect.stringMatching(/it owns no branch, so it may not push$/),
    });
  });

  test('a pull request’s branch it was admitted to: fast-forwards only, never created or deleted', () => {
    expect(judgeRefUpdate(update(A, B, 'refs/heads/feature/login'), onPr, rules)).toEqual({
      allow: true,
      fastForwardOnly: true,
      pullRequest: 7,
    });
    expect(judgeRefUpdate(update(A, Z, 'refs/heads/feature/login'), onPr, rules)).toMatchObject({
      allow: false,
      rule: 'delete',
      reason: expect.stringMatching(/pull request #7's branch, which this run did not create/),
    });
    expect(judgeRefUpdate(update(Z, B, 'refs/heads/feature/login'), onPr, rules)).toMatchObject({ allow: false, rule: 'create' });
  });

  test('an own branch outside the prefix is no one’s (a workflow cannot name the default branch its own)', () => {
    expect(judgeRefUpdate(update(A, B, 'refs/heads/main'), { own: ['main'] }, rules)).toMatchObject({
      allow: false,
      rule: 'outside-prefix',
    });
    expect(ownedSummary({ own: ['main'] }, rules)).toBe('it owns no branch, so it may not push');
  });

  test('narrowing turns switches off and never on', () => {
    const narrowed = narrowPushRules(
      { ...rules, forceOwnBranch: false },
      { pullRequestHeads: false },
      { forceOwnBranch: true, deleteOwnBranch: false },
    );
    expect(narrowed).toEqual({ branchPrefix: 'switchboard/', pullRequestHeads: false, forceOwnBranch: false, deleteOwnBranch: false });
    expect(judgeRefUpdate(update(A, B, 'refs/heads/switchboard/run-1'), own, narrowed)).toEqual({ allow: true, fastForwardOnly: true });
    expect(judgeRefUpdate(update(A, Z, 'refs/heads/switchboard/run-1'), own, narrowed)).toMatchObject({ allow: false, rule: 'delete' });
    expect(judgeRefUpdate(update(A, B, 'refs/heads/feature/login'), onPr, narrowed)).toMatchObject({
      allow: false,
      rule: 'pull-request-heads-off',
    });
  });
});
