import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config';
import { temporalTarget } from './temporal-connection';

/** Temporal's client config (TOML profile, TEMPORAL_* variables) under our temporal.* keys. */
describe('temporalTarget', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-target-'));
  for (const name of ['ca.pem', 'client.pem', 'client.key', 'our-ca.pem']) writeFileSync(join(dir, name), `${name}\n`);
  const toml = join(dir, 'temporal.toml');
  writeFileSync(
    toml,
    [
      '[profile.default]',
      'address = "default.example:7233"',
      '[profile.cloud]',
      'address = "ns.acct.tmprl.cloud:7233"',
      'namespace = "ns.acct"',
      '[profile.cloud.tls]',
      `server_ca_cert_path = "${join(dir, 'ca.pem')}"`,
      `client_cert_path = "${join(dir, 'client.pem')}"`,
      `client_key_path = "${join(dir, 'client.key')}"`,
      '',
    ].join('\n'),
  );
  const load = (env: NodeJS.ProcessEnv, yaml?: string) => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    if (yaml) writeFileSync(join(cwd, 'switchboard.yaml'), yaml);
    return loadConfig({ env: { HOME: dir, ...env }, cwd });
  };

  it('takes address, namespace and mTLS from the named profile', () => {
    const loaded = load({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud' });
    expect(loaded.config.temporal).toMatchObject({ address: 'ns.acct.tmprl.cloud:7233', namespace: 'ns.acct', profile: 'cloud' });
    const target = temporalTarget(loaded);
    expect(target).toMatchObject({ address: 'ns.acct.tmprl.cloud:7233', namespace: 'ns.acct' });
    const tls = target.tls as { serverRootCACertificate: Buffer; clientCertPair: { crt: Buffer; key: Buffer } };
    expect(Buffer.from(tls.serverRootCACertificate).toString()).toBe('ca.pem\n');
    expect(Buffer.from(tls.clientCertPair.key).toString()).toBe('client.key\n');
  });

  it('lets our file and variables win, and an API key turn TLS on', () => {
    const yaml = 'temporal:\n  namespace: from-yaml\n  tls:\n    serverCaFile: our-ca.pem\n    serverName: temporal.internal\n';
    const loaded = load({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud', TEMPORAL_ADDRESS: 'env.example:7233' }, yaml);
    // Relative TLS files in switchboard.yaml sit next to it.
    writeFileSync(join(loaded.baseDir, 'our-ca.pem'), 'ours\n');
    const target = temporalTarget(loaded);
    expect(target).toMatchObject({ address: 'env.example:7233', namespace: 'from-yaml' });
    const tls = target.tls as { serverRootCACertificate: Buffer; serverNameOverride: string; clientCertPair?: unknown };
    expect(Buffer.from(tls.serverRootCACertificate).toString()).toBe('ours\n');
    expect(tls.serverNameOverride).toBe('temporal.internal');
    expect(tls.clientCertPair).toBeDefined();

    const keyed = temporalTarget(load({ TEMPORAL_ADDRESS: 'cloud.example:7233', TEMPORAL_API_KEY: 'k' }));
    expect(keyed).toMatchObject({ apiKey: 'k', tls: true });
  });

  it('connects to the embedded server in plaintext, whatever the profile says', () => {
    const loaded = load({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud' });
    expect(temporalTarget(loaded, '127.0.0.1:7233')).toEqual({ address: '127.0.0.1:7233', namespace: 'ns.acct' });
    expect(temporalTarget(load({}))).toEqual({ address: '127.0.0.1:7233', namespace: 'default' });
  });

  it('names a missing profile and an unreadable TLS file as configuration errors', () => {
    expect(() => load({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'nope' })).toThrow(
      /Invalid configuration: TEMPORAL_CONFIG_FILE=.*Profile 'nope' not found/,
    );
    const loaded = load({ TEMPORAL_ADDRESS: 'x.example:7233' }, 'temporal:\n  tls:\n    serverCaFile: missing.pem\n');
    expect(() => temporalTarget(loaded)).toThrow(/temporal\.tls\.serverCaFile: cannot read .*missing\.pem \(ENOENT\)/);
  });
});
