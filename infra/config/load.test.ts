import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../errors';
import { loadConfig } from './load';

function dirWith(yaml?: string, name = 'switchboard.yaml'): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-config-'));
  if (yaml !== undefined) writeFileSync(join(dir, name), yaml);
  return dir;
}

function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('gives a working local setup with no file and no variables', () => {
    const cwd = dirWith();
    const { config, source } = loadConfig({ env: {}, cwd });
    expect(source.fileReason).toBe('no file');
    expect(config.temporal).toMatchObject({ namespace: 'default', taskQueue: 'switchboard', embedded: { port: 7233, uiPort: 8233 } });
    expect(config.temporal.address).toBeUndefined();
    expect(config.http.port).toBe(3000);
    expect(config.dataDir).toBe(join(cwd, '.data'));
    // Fail closed unless someone explicitly chose otherwise; any public host by default.
    expect(config.sandbox).toEqual({
      isolation: 'bwrap',
      egress: { allow: ['*'], machines: {}, agents: {} },
      hiddenPaths: [],
      limits: {
        processes: 1024,
        memoryMiB: 4096,
        tmpMiB: 1024,
        shmMiB: 256,
        diskMiB: 10240,
        cpuSeconds: 3600,
        fileMiB: 4096,
        openFiles: 4096,
      },
      repoCache: { enabled: true, maxMiB: 20_480, maxAgeDays: 14, maxPacks: 40, refreshSeconds: 10, setupMiB: 2_048, keepSetups: 3 },
    });
    // No uid range unless one is set: each deployment then gets its own, derived from its data dir (sandbox-uids.ts).
    expect(config.sandbox.uids).toBeUndefined();
    // What runs may push: their own branches under switchboard/, admitted pull requests' branches as fast-forwards.
    expect(config.github.pushes).toEqual({
      branchPrefix: 'switchboard/',
      pullRequestHeads: true,
      forceOwnBranch: true,
      deleteOwnBranch: true,
    });
  });

  it('reads switchboard.yaml by default and lets environment variables win', () => {
    const cwd = dirWith('temporal:\n  taskQueue: from-file\n  namespace: file-ns\nhttp:\n  port: 4000\n');
    const { config, source } = loadConfig({ env: { SWITCHBOARD_TASK_QUEUE: 'from-env', PORT: '5000' }, cwd });
    expect(source).toMatchObject({ fileReason: 'default file', environment: ['SWITCHBOARD_TASK_QUEUE', 'PORT'] });
    expect(config.temporal.taskQueue).toBe('from-env');
    expect(config.temporal.namespace).toBe('file-ns');
    expect(config.http.port).toBe(5000);
  });

  it('reads the file SWITCHBOARD_CONFIG names, and says when it is missing', () => {
    const cwd = dirWith('log:\n  level: debug\n', 'custom.yaml');
    expect(loadConfig({ env: { SWITCHBOARD_CONFIG: 'custom.yaml' }, cwd }).config.log.level).toBe('debug');
    expect(errorOf(() => loadConfig({ env: { SWITCHBOARD_CONFIG: 'nope.yaml' }, cwd })).message).toMatch(
      /SWITCHBOARD_CONFIG: file .*nope\.yaml does not exist/,
    );
  });

  it('takes API token hashes from SWITCHBOARD_API_TOKENS as JSON, naming the variable when an entry is bad', () => {
    const entry = { id: 'ci', sha256: 'a'.repeat(64), user: 'U1' };
    const { config } = loadConfig({ env: { SWITCHBOARD_API_TOKENS: JSON.stringify([entry]) }, cwd: dirWith() });
    expect(config.api.tokens).toEqual([{ ...entry, selfServe: false }]);
    const bad = errorOf(() =>
      loadConfig({ env: { SWITCHBOARD_API_TOKENS: JSON.stringify([{ ...entry, sha256: 'nope' }]) }, cwd: dirWith() }),
    );
    expect(bad.message).toMatch(/SWITCHBOARD_API_TOKENS \(api\.tokens\.0\.sha256\): the SHA-256 of the token/);
  });

  it.each([
    ['a wrong type in the file', 'http:\n  port: "eighty"\n', {}, /switchboard\.yaml: http\.port: .*expected number/i],
    ['an out-of-range number', 'temporal:\n  embedded:\n    port: 70000\n', {}, /temporal\.embedded\.port: .*65535/],
    ['an unknown key', 'temporal:\n  adress: x\n', {}, /unknown key temporal\.adress/],
    ['a bad enum', 'log:\n  format: xml\n', {}, /log\.format: .*"auto"|log\.format: .*auto/],
    ['a bad environment value', '', { PORT: 'abc' }, /PORT \(http\.port\): .*expected number/i],
    [
      'a Temporal address with a scheme',
      '',
      { TEMPORAL_ADDRESS: 'http://t:7233' },
      /TEMPORAL_ADDRESS \(temporal\.address\): expected host:port .*"http:\/\/t:7233"/,
    ],
    ['invalid YAML', 'temporal: [\n', {}, /not valid YAML/],
    ['a list at the top', '- a\n', {}, /expected a mapping/],
    ['a secret in the file', 'github:\n  writeToken: ghp_x\n', {}, /github\.writeToken: secrets are read from the environment only/],
    [
      'the S3 store without a bucket',
      'payloads:\n  store: s3\n',
      {},
      /payloads\.s3\.bucket: payloads\.store is s3: set payloads\.s3\.bucket/,
    ],
    [
      'a bad payload store',
      '',
      { SWITCHBOARD_PAYLOADS_STORE: 'nfs' },
      /SWITCHBOARD_PAYLOADS_STORE \(payloads\.store\): .*"directory".*"s3"/,
    ],
    ['a bad bucket name', 'payloads:\n  store: s3\n  s3:\n    bucket: My_Bucket\n', {}, /payloads\.s3\.bucket: expected an S3 bucket name/],
    [
      'an S3 endpoint that is no URL',
      '',
      { SWITCHBOARD_PAYLOADS_STORE: 's3', SWITCHBOARD_PAYLOADS_S3_BUCKET: 'b1b', SWITCHBOARD_PAYLOADS_S3_ENDPOINT: 'minio:9000' },
      /SWITCHBOARD_PAYLOADS_S3_ENDPOINT \(payloads\.s3\.endpoint\): /,
    ],
    [
      'S3 credentials in the file',
      'payloads:\n  s3:\n    bucket: b1b\n    secretAccessKey: x\n',
      {},
      /payloads\.s3\.secretAccessKey: secrets are read from the environment only \(.*AWS_SECRET_ACCESS_KEY/,
    ],
    [
      'a secret handed to a sandboxed MCP server',
      'mcp:\n  servers:\n    tracker:\n      transport: stdio\n      command: tracker-mcp\n      env:\n        TRACKER_TOKEN: t0k\n',
      {},
      /mcp\.servers\.tracker\.env\.TRACKER_TOKEN: secrets are read from the environment only/,
    ],
    [
      'an MCP attachment naming no server',
      'mcp:\n  agents:\n    general:\n      - server: tracker\n',
      {},
      /mcp\.agents\.general\.0\.server: no mcp\.servers entry is called tracker/,
    ],
    [
      'an MCP server name with underscores',
      'mcp:\n  servers:\n    my_tracker:\n      transport: http\n      url: https://mcp.example.com/mcp\n',
      {},
      /mcp\.servers\.my_tracker: lowercase letters, digits and hyphens/,
    ],
    // Unisolated mode has one spelling; anything else (none, off, false) is a mistake, not a choice.
    [
      'an isolation nobody meant',
      '',
      { SWITCHBOARD_SANDBOX_ISOLATION: 'none' },
      /SWITCHBOARD_SANDBOX_ISOLATION \(sandbox\.isolation\): .*bwrap.*unisolated-unsafe/,
    ],
    [
      'a destination that is a URL',
      'sandbox:\n  egress:\n    allow: ["https://github.com"]\n',
      {},
      /sandbox\.egress\.allow\.0: a host pattern/,
    ],
  ])('names the key for %s', (_label, yaml, env, expected) => {
    const error = errorOf(() => loadConfig({ env, cwd: dirWith(yaml) }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toMatch(expected);
    expect(error.message).not.toMatch(/\n\s+at /); // never a stack trace
  });

  it('chooses the S3 claim-check store from the file or the environment, with defaults for the rest', () => {
    const fromFile = loadConfig({ env: {}, cwd: dirWith('payloads:\n  store: s3\n  s3:\n    bucket: team-payloads\n') }).config;
    expect(fromFile.payloads).toMatchObject({ store: 's3', s3: { bucket: 'team-payloads', forcePathStyle: false } });
    const env = {
      SWITCHBOARD_PAYLOADS_STORE: 's3',
      SWITCHBOARD_PAYLOADS_S3_BUCKET: 'b1b',
      SWITCHBOARD_PAYLOADS_S3_PREFIX: 'prod/',
      SWITCHBOARD_PAYLOADS_S3_ENDPOINT: 'http://minio:9000',
      SWITCHBOARD_PAYLOADS_S3_FORCE_PATH_STYLE: 'true',
    };
    expect(loadConfig({ env, cwd: dirWith() }).config.payloads).toMatchObject({
      store: 's3',
      s3: { bucket: 'b1b', prefix: 'prod/', endpoint: 'http://minio:9000', forcePathStyle: true },
    });
    expect(loadConfig({ env: {}, cwd: dirWith() }).config.payloads.store).toBe('directory');
  });

  describe('relative paths', () => {
    const yaml = [
      'dataDir: state',
      'agents:',
      '  customAgentsDir: ../agents.d',
      'skills:',
      '  dirs: [skills, /opt/skills]',
      'models:',
      '  scriptedDirs:',
      '    demo: scripts',
      '',
    ].join('\n');

    it("resolve against the config file's folder, wherever the process starts", () => {
      const home = dirWith();
      mkdirSync(join(home, 'deploy'));
      writeFileSync(join(home, 'deploy', 'switchboard.yaml'), yaml);
      const elsewhere = dirWith();
      const { config } = loadConfig({ env: { SWITCHBOARD_CONFIG: join(home, 'deploy', 'switchboard.yaml') }, cwd: elsewhere });
      expect(config.dataDir).toBe(join(home, 'deploy', 'state'));
      expect(config.agents.customAgentsDir).toBe(join(home, 'agents.d'));
      expect(config.skills.dirs).toEqual([join(home, 'deploy', 'skills'), '/opt/skills']);
      expect(config.models.scriptedDirs).toEqual({ demo: join(home, 'deploy', 'scripts') });
    });

    it('from an environment variable or a default resolve against the working directory', () => {
      const home = dirWith('agents:\n  customAgentsDir: agents.d\n', 'sb.yaml');
      const cwd = dirWith();
      const fromEnv = loadConfig({ env: { SWITCHBOARD_CONFIG: join(home, 'sb.yaml'), SWITCHBOARD_DATA_DIR: 'mine' }, cwd }).config;
      expect(fromEnv.dataDir).toBe(join(cwd, 'mine'));
      expect(fromEnv.agents.customAgentsDir).toBe(join(home, 'agents.d'));
      const defaults = loadConfig({ env: { SWITCHBOARD_CONFIG: join(home, 'sb.yaml') }, cwd }).config;
      expect(defaults.dataDir).toBe(join(cwd, '.data'));
      expect(defaults.models.scriptedDirs).toEqual({ examples: join(cwd, 'examples') });
    });
  });
});
