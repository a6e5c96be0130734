import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config';
import { serverBaseUrl, sessionKey, sessionLinksFromConfig, SessionLinks, SESSION_KEY_FILE } from './session-links';

const SECRET = 'k'.repeat(64);
const HOUR = 3_600_000;

describe('session page links', () => {
  const links = new SessionLinks(SECRET, 24 * HOUR, 'https://switchboard.example.com');
  const id = 'unit:acme/app#42/coding-1-1';

  it('opens the one workflow it was signed for, until it expires', () => {
    const now = Date.UTC(2026, 0, 1, 10, 30);
    const url = new URL(links.url(id, now));
    expect(url.origin).toBe('https://switchboard.example.com');
    expect(url.pathname).toBe(`/session/${encodeURIComponent(id)}`);
    const token = url.searchParams.get('k')!;
    // Valid for the TTL rounded up to the hour: a card updated all hour keeps one link.
    expect(links.check(id, token, now)).toEqual({ ok: true, expiresAt: Date.UTC(2026, 0, 2, 11) });
    expect(links.url(id, now + 20 * 60_000)).toBe(url.href);
    expect(links.check(id, token, Date.UTC(2026, 0, 2, 11))).toEqual({ ok: false, refusal: 'expired' });
  });

  it('tells a link for another workflow from a forged, tampered or missing one', () => {
    const token = links.token(id, Date.now() + HOUR);
    expect(links.check(`${id}x`, token)).toEqual({ ok: false, refusal: 'other_workflow' });
    expect(links.check('unit:acme/app#42', token)).toEqual({ ok: false, refusal: 'other_workflow' });
    const [expiry, scope, signature] = token.split('.');
    expect(links.check(id, `${expiry}.${scope}.${signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`)).toEqual({
      ok: false,
      refusal: 'bad_signature',
    });
    // A later expiry with the old signature is a forgery, not an extension.
    expect(links.check(id, `${(parseInt(expiry, 36) + 3600).toString(36)}.${scope}.${signature}`)).toEqual({
      ok: false,
      refusal: 'bad_signature',
    });
    expect(links.check(id, 'nonsense')).toEqual({ ok: false, refusal: 'malformed' });
    expect(links.check(id, undefined)).toEqual({ ok: false, refusal: 'missing' });
    // Another key's link is no link here.
    expect(new SessionLinks('o'.repeat(64), HOUR, '').check(id, token)).toEqual({ ok: false, refusal: 'bad_signature' });
  });

  it('comes from the config and the environment: the secret from the environment, 32 characters at least', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'session-links-'));
    const { config } = loadConfig({ env: { SWITCHBOARD_SESSION_LINK_TTL_HOURS: '2', PORT: '3456' }, cwd });
    expect(config.sessions).toEqual({ enabled: true, linkTtlHours: 2 });
    const made = sessionLinksFromConfig(config, { SWITCHBOARD_SESSION_SECRET: SECRET })!;
    expect(made.ttlMs).toBe(2 * HOUR);
    expect(made.baseUrl).toBe('http://127.0.0.1:3456');
    expect(made.check(id, new SessionLinks(SECRET, HOUR, '').token(id, Date.now() + HOUR)).ok).toBe(true);
    expect(() => sessionLinksFromConfig(config, { SWITCHBOARD_SESSION_SECRET: 'short' })).toThrow(
      /SWITCHBOARD_SESSION_SECRET: at least 32 characters/,
    );
    expect(
      sessionLinksFromConfig({ ...config, sessions: { ...config.sessions, enabled: false } }, { SWITCHBOARD_SESSION_SECRET: SECRET }),
    ).toBeUndefined();
    expect(serverBaseUrl({ http: { ...config.http, publicUrl: 'https://sb.example.com/' } })).toBe('https://sb.example.com');
    expect(serverBaseUrl({ http: { ...config.http, port: 0 } })).toBe('');
    rmSync(cwd, { recursive: true, force: true });
  });

  it('without the secret, signs with a key generated once into the data dir (0600), which deleting rotates', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'session-key-'));
    const { config } = loadConfig({ env: {}, cwd });
    const file = join(config.dataDir, SESSION_KEY_FILE);
    const first = sessionLinksFromConfig(config, {})!;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(sessionKey(config, {})).toEqual({ secret: readFileSync(file, 'utf8').trim(), source: 'file', file });
    // Another process of this deployment (the worker, the server, the CLI) reads the same key.
    const url = new URL(first.url(id));
    const token = url.searchParams.get('k')!;
    expect(sessionLinksFromConfig(config, {})!.check(id, token).ok).toBe(true);
    // The environment wins over the file.
    expect(sessionLinksFromConfig(config, { SWITCHBOARD_SESSION_SECRET: SECRET })!.check(id, token)).toEqual({
      ok: false,
      refusal: 'bad_signature',
    });
    // Deleting the file makes a new key: every old link is void.
    rmSync(file);
    expect(sessionLinksFromConfig(config, {})!.check(id, token)).toEqual({ ok: false, refusal: 'bad_signature' });
    rmSync(cwd, { recursive: true, force: true });
  });

  it('refuses a key file others can read, a short one, or one that is not a regular file, naming the fix', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'session-key-'));
    const { config } = loadConfig({ env: {}, cwd });
    const file = join(config.dataDir, SESSION_KEY_FILE);
    sessionKey(config, {});
    chmodSync(file, 0o644);
    expect(() => sessionKey(config, {})).toThrow(/session\.key: the session link key is readable by others \(mode 644\): `chmod 600 /);
    rmSync(file);
    writeFileSync(file, 'short\n', { mode: 0o600 });
    expect(() => sessionKey(config, {})).toThrow(/shorter than 32 characters; delete it to make a new key/);
    rmSync(file);
    symlinkSync('/etc/hostname', file);
    expect(() => sessionKey(config, {})).toThrow(/must be a regular file/);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('refuses the key in the config file, naming the variable to use', () => {
    const dir = mkdtempSync(join(tmpdir(), 'session-config-'));
    writeFileSync(join(dir, 'switchboard.yaml'), 'sessions:\n  secret: abcdefabcdefabcdefabcdefabcdefabcdef\n');
    expect(() => loadConfig({ env: {}, cwd: dir })).toThrow(
      /sessions\.secret: secrets are read from the environment only \(.*SWITCHBOARD_SESSION_SECRET/,
    );
    rmSync(dir, { recursive: true, force: true });
  });
});
