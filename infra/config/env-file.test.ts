import { chownSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyEnvFile, envFilePath, parseEnvFile, quoteEnvValue, withEnvFile, writeEnvFile } from './env-file';

describe('the env file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'env-file-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is SWITCHBOARD_ENV_FILE, else switchboard.env in the working directory', () => {
    expect(envFilePath({}, dir)).toBe(join(dir, 'switchboard.env'));
    expect(envFilePath({ SWITCHBOARD_ENV_FILE: 'etc/sb.env' }, dir)).toBe(join(dir, 'etc', 'sb.env'));
    expect(envFilePath({ SWITCHBOARD_ENV_FILE: '/etc/switchboard/switchboard.env' }, dir)).toBe('/etc/switchboard/switchboard.env');
  });

  it('reads KEY=value lines, comments, quotes and export, and names a bad line', () => {
    const parsed = parseEnvFile(
      ['# GitHub App', 'export GITHUB_APP_ID=123', 'PLAIN = spaced ', "SINGLE='a \\n b'", 'DOUBLE="x\\ny \\"q\\""', '', 'EMPTY='].join(
        '\n',
      ),
    );
    expect(Object.fromEntries(parsed)).toEqual({
      GITHUB_APP_ID: '123',
      PLAIN: 'spaced',
      SINGLE: 'a \\n b',
      DOUBLE: 'x\ny "q"',
      EMPTY: '',
    });
    expect(() => parseEnvFile('A=1\nnot a line\n', 'f.env')).toThrow(/f\.env:2: expected KEY=value/);
    expect(() => parseEnvFile("A='open\n", 'f.env')).toThrow(/f\.env:1: a single-quoted value must end with '/);
  });

  it('writes 0600, keeps other lines, replaces keys in place, and round-trips any value (a PEM too)', () => {
    const file = join(dir, 'nested', 'switchboard.env');
    writeEnvFile(file, { A: 'one' });
    writeFileSync(file, `# mine\n${readFileSync(file, 'utf8')}OTHER=kept\n`, { mode: 0o600 });
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc=\n-----END RSA PRIVATE KEY-----\n';
    writeEnvFile(file, { A: 'two', KEY: pem, QUOTE: "it's $HOME" }, 'added by a test');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n').slice(0, 3)).toEqual(['# mine', 'A=two', 'OTHER=kept']);
    expect(text).toContain('# added by a test');
    expect(Object.fromEntries(parseEnvFile(text))).toEqual({ A: 'two', OTHER: 'kept', KEY: pem, QUOTE: "it's $HOME" });
    expect(quoteEnvValue('ghs_abc-1.2:3')).toBe('ghs_abc-1.2:3');
    expect(quoteEnvValue('a b')).toBe("'a b'");
  });

  // Only root can give a file away; elsewhere the case cannot arise.
  (process.getuid?.() === 0 ? it : it.skip)(
    'keeps the owner of a file root rewrites, so the deployment user that owns it can still read it',
    () => {
      const file = join(dir, 'owned.env');
      writeFileSync(file, 'A=1\n', { mode: 0o600 });
      chownSync(file, 65534, 65534);
      writeEnvFile(file, { B: 'two' });
      expect({ uid: statSync(file).uid, gid: statSync(file).gid, mode: statSync(file).mode & 0o777 }).toEqual({
        uid: 65534,
        gid: 65534,
        mode: 0o600,
      });
    },
  );

  it('goes under the environment: a variable already set wins', () => {
    const file = join(dir, 'switchboard.env');
    writeEnvFile(file, { FROM_FILE: 'file', BOTH: 'file' });
    const env: NodeJS.ProcessEnv = { BOTH: 'environment' };
    const report = applyEnvFile(env, dir);
    expect(report).toEqual({ path: file, found: true, applied: ['FROM_FILE'], mode: 0o600 });
    expect(env).toEqual({ BOTH: 'environment', FROM_FILE: 'file' });
    expect(applyEnvFile({}, join(dir, 'elsewhere'))).toEqual({
      path: join(dir, 'elsewhere', 'switchboard.env'),
      found: false,
      applied: [],
    });
    const untouched = { BOTH: 'environment' };
    expect(withEnvFile(untouched, dir)).toEqual({ BOTH: 'environment', FROM_FILE: 'file' });
    expect(untouched).toEqual({ BOTH: 'environment' });
  });
});
