import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { webDepsFromConfig } from '../../activities/web/from-config';
import { envFilePath, loadConfig, parseEnvFile, readSecret, resolveConfigPath, withEnvFile, type LoadedConfig } from '../../infra/config';
import { checkGitHubApp } from '../setup/github-check';
import { checkSlack } from '../setup/slack-check';
import { describeError, TemporalUnreachableError } from '../../infra/errors';
import { projectRoot } from '../../infra/paths';
import { binaryVersion, findTemporalBinary, resolveTemporalBinary, type BinaryKind } from '../../infra/temporal-binaries';
import { cliTypeName, connectTemporal, missingSearchAttributes, pingTemporal } from '../../infra/temporal';
import { temporalTarget } from '../../infra/temporal-connection';
import { SEARCH_ATTRIBUTE_KEYS } from '../../workflows/search-attributes';
import { canonicalModel } from '../../agents/model-choice';
import { githubIdentity, modelKeyFix } from '../../infra/preflight';
import { detectIsolation, readinessOf, type IsolationCheck } from '../../activities/sandbox/isolation';
import { sandboxBounds } from '../../activities/sandbox/bounds';
import { foreignProcesses, uidRangeFor, type UidRange } from '../../activities/sandbox/sandbox-uids';
import { DEFAULT_LIMITS } from '../../activities/sandbox/limits';
import { payloadsDir, payloadStoreFromConfig, S3Store } from '../../infra/payloads';

/** The parts of `doctor` (`--only` picks some; the config is always read). */
export const DOCTOR_PARTS = ['system', 'temporal', 'credentials', 'github', 'slack', 'payloads', 'sandbox'] as const;
export type DoctorPart = (typeof DOCTOR_PARTS)[number];

export interface DoctorOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Only these parts (default: all). */
  only?: DoctorPart[];
  write?: (line: string) => void;
  /** How the machine is probed for bubblewrap (tests simulate a machine without it). */
  sandboxProbe?: () => Promise<IsolationCheck>;
}

/**
 * Checks what Switchboard needs to run and prints one line per check. Returns the exit
 * code: 0 when all is well, 1 with the fix for each problem otherwise.
 */
export async function runDoctor(options: DoctorOptions = {}): Promise<number> {
  const write = options.write ?? ((line: string) => console.log(line));
  const problems: string[] = [];
  const part = (name: DoctorPart) => !options.only || options.only.includes(name);
  let env = options.env ?? process.env;
  try {
    // The deployment's env file under the environment, as every process reads it at start.
    env = withEnvFile(env, options.cwd);
    write(envFileLine(env, options.cwd ?? process.cwd()));
  } catch (error) {
    write(`FAIL  env file: ${describeError(error)}`);
    problems.push('fix the env file line named above');
  }

  let loaded: LoadedConfig | undefined;
  try {
    loaded = loadConfig({ env, cwd: options.cwd });
    const { source } = loaded;
    const file = source.file ? `${source.file} (${source.fileReason})` : 'no file (defaults)';
    const overrides = source.environment.length ? `; environment overrides: ${source.environment.join(', ')}` : '';
    write(`ok    config: ${file}${overrides}`);
  } catch (error) {
    write(`FAIL  config: ${describeError(error)}`);
    problems.push('fix the configuration values named above');
  }

  if (part('system')) for (const line of systemPackageLines(env, problems)) write(line);

  for (const kind of part('system') ? (['cli', 'test-server'] as BinaryKind[]) : []) {
    const label = kind === 'cli' ? 'temporal CLI' : 'temporal test server';
    const found = findTemporalBinary(kind, { env });
    if (found) {
      write(`ok    ${label}: ${found.path} (${found.via}; ${binaryVersion(kind, found.path)})`);
    } else {
      const message = tryResolve(kind, env);
      write(`FAIL  ${label}: ${message}`);
      problems.push(message);
    }
  }

  if (loaded && part('credentials')) write(`info  tools: ${describeWebTools(loaded, env)}`);
  if (loaded && part('credentials')) for (const line of credentialLines(loaded, env, problems)) write(line);
  // GitHub and Slack answer for what they granted: the App's permissions, events, installation and
  // webhook; the bot token's scopes.
  for (const [name, check] of [
    ['github', () => checkGitHubApp(loaded!, env)],
    ['slack', () => checkSlack(loaded!, env)],
  ] as const) {
    if (!loaded || !part(name)) continue;
    for (const entry of await check()) {
      write(entry.line);
      if (entry.problem) problems.push(entry.problem);
    }
  }

  if (loaded && part('temporal')) {
    const { temporal } = loaded.config;
    const address = temporal.address ?? `${temporal.embedded.ip}:${temporal.embedded.port}`;
    try {
      const target = temporalTarget(loaded);
      const connection = await connectTemporal({ ...target, timeoutMs: 3_000 });
      try {
        await pingTemporal(connection, temporal.namespace, 3_000);
        const secured = target.apiKey ? ', TLS with an API key' : target.tls ? ', TLS' : '';
        write(`ok    temporal server: ${address}, namespace ${temporal.namespace}${secured}`);
        const missing = await missingSearchAttributes(connection, temporal.namespace);
        if (missing.length === 0) {
          write('ok    search attributes: all registered');
        } else {
          write(`FAIL  search attributes: missing ${missing.join(', ')}; create them with:`);
          for (const line of createAttributeLines(missing, loaded)) write(`      ${line}`);
          problems.push('create the missing search attributes with the lines above (`npm start` registers them itself where it may)');
        }
      } finally {
        await connection.close();
      }
    } catch (error) {
      const embedded = !temporal.address;
      const why = error instanceof TemporalUnreachableError ? error.reason : describeError(error);
      write(`${embedded ? 'info ' : 'FAIL '} temporal server: not reachable at ${address}${why ? ` (${why})` : ''}`);
      if (!embedded) problems.push(`start Temporal at ${address} or correct TEMPORAL_ADDRESS`);
      else write('      `npm start` starts the embedded server there');
    }
  }

  if (loaded && part('payloads')) {
    const problem = await checkPayloadStore(loaded, write);
    if (problem) problems.push(problem);
  }

  if (loaded && part('sandbox')) {
    const problem = await checkSandbox(loaded, write, options.sandboxProbe ?? detectIsolation);
    if (problem) problems.push(problem);
  }

  if (problems.length === 0) {
    write('Switchboard looks ready (any WARN above names what is refused until it is set).');
    return 0;
  }
  write(`\n${problems.length} problem${problems.length > 1 ? 's' : ''}:`);
  for (const problem of problems) write(`  - ${problem}`);
  return 1;
}

/**
 * The exact `temporal operator search-attribute create` lines for the missing attributes. The
 * `temporal` CLI reads the same client config (TEMPORAL_* variables, the TOML profile), so
 * the profile and address Switchboard uses are named and TLS/API keys come along by themselves.
 */
export function createAttributeLines(missing: string[], loaded: LoadedConfig): string[] {
  const { temporal } = loaded.config;
  const connection = [
    ...(temporal.address ? [`--address ${temporal.address}`] : []),
    ...(temporal.profile ? [`--profile ${temporal.profile}`] : []),
    `--namespace ${temporal.namespace}`,
  ].join(' ');
  return SEARCH_ATTRIBUTE_KEYS.filter((key) => missing.includes(key.name)).map(
    (key) => `temporal operator search-attribute create ${connection} --name ${key.name} --type ${cliTypeName(key)}`,
  );
}

/** What the web and skill tools will do here: a tool whose backend is missing is off in every run. */
function describeWebTools(loaded: LoadedConfig, env: NodeJS.ProcessEnv): string {
  const { web, skills } = loaded.config;
  const deps = webDepsFromConfig(web, (name) => readSecret(name, env));
  const allow = web.fetch.allowHosts.length ? web.fetch.allowHosts.join(', ') : 'none';
  const fetch = deps.fetch ? `web_fetch on (allowlist: ${allow})` : 'web_fetch off (web.fetch.enabled is false)';
  const search = deps.search
    ? `web_search on (${deps.search.name})`
    : `web_search off (${deps.searchOff ?? 'no search provider is configured (web.search.provider)'})`;
  return `${fetch}; ${search}; skills: ${skills.dirs.length} configured folder${skills.dirs.length === 1 ? '' : 's'} beside each checkout's .switchboard/skills/`;
}

/**
 * The credentials work needs: the default model's key (without it no run can answer) is a
 * problem; a missing GitHub identity is a warning, since ship units, reviews, coding runs and
 * GitHub answers are then refused at the door with the setting to add.
 */
function credentialLines(loaded: LoadedConfig, env: NodeJS.ProcessEnv, problems: string[]): string[] {
  const lines: string[] = [];
  const model = canonicalModel(loaded.config.agents.defaults.model);
  const fix = modelKeyFix(model, env);
  if (fix) {
    lines.push(`FAIL  model: the default model ${model} cannot be called: ${fix}`);
    problems.push(`${fix} for the default model ${model} (agents.defaults.model)`);
  } else lines.push(`ok    model: the default model ${model} has its key (or needs none)`);
  // An App's identities are checked by the GitHub part (which mints their tokens).
  if (loaded.config.github.appId || readSecret('githubAppPrivateKey', env)) return lines;
  const identity = githubIdentity(loaded, env);
  for (const scope of ['read', 'write'] as const) {
    const source = identity[scope];
    if (source) lines.push(`ok    github ${scope} identity: ${source}`);
    else
      lines.push(
        `WARN  github ${scope} identity: none (${scope === 'read' ? 'GITHUB_READ_TOKEN' : 'GITHUB_WRITE_TOKEN'} or the App): ` +
          (scope === 'read' ? 'reviews and GitHub reads are refused' : 'ship units, coding runs and answers on GitHub are refused'),
      );
  }
  return lines;
}

/**
 * The claim-check store: a folder is only named (every process must share it); an S3 bucket is
 * probed by writing and reading back one small object, since a worker that cannot reach it
 * fails every workflow task that carries a large payload.
 */
async function checkPayloadStore(loaded: LoadedConfig, write: (line: string) => void): Promise<string | undefined> {
  const { config } = loaded;
  if (config.payloads.store !== 's3') {
    write(
      `info  payloads: claim-check folder ${payloadsDir(config)} (every worker and client must share it; payloads.store: s3 for clusters)`,
    );
    return undefined;
  }
  const store = payloadStoreFromConfig(config);
  if (!(store instanceof S3Store)) throw new Error('payloads.store is s3 but the store is not the S3 store');
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${store.description}: no answer within 15 s`)), 15_000);
    });
    await Promise.race([store.probe(), timeout]);
    write(`ok    payloads: ${store.description} is reachable and writable`);
    return undefined;
  } catch (error) {
    write(`FAIL  payloads: ${describeError(error).split('\n')[0]}`);
    return `make ${store.description} reachable and writable with this environment's AWS credentials (payloads.s3.*, AWS_* variables or role)`;
  } finally {
    clearTimeout(timer);
    store.close();
  }
}

/** The sandbox: isolated, unisolated by explicit choice (said loudly), or missing (a problem with its fix). */
async function checkSandbox(
  loaded: LoadedConfig,
  write: (line: string) => void,
  probe: () => Promise<IsolationCheck>,
): Promise<string | undefined> {
  const setting = loaded.config.sandbox.isolation;
  const check = setting === 'bwrap' ? await probe() : ({ mode: 'none', setpriv: false } as IsolationCheck);
  const readiness = readinessOf(setting, check);
  if (readiness.mode === 'bwrap') {
    write(
      'ok    sandbox: bubblewrap isolates commands (own user, mount, pid, network, IPC and UTS namespaces); network door: nsenter (util-linux)',
    );
    const { limits, uids } = loaded.config.sandbox;
    const dataDir = resolveConfigPath(loaded, loaded.config.dataDir);
    const { range, configured } = uidRangeFor(dataDir, uids);
    const bounds = sandboxBounds(check, { ...DEFAULT_LIMITS, ...limits }, range);
    write(`      user: ${bounds.user}`);
    write(`      ${uidRangeLine(range, configured, foreignProcesses(range, join(dataDir, 'sandbox-uids')))}`);
    write(`      seccomp: ${bounds.seccomp}`);
    write(`      cgroups: ${bounds.cgroups}`);
    for (const [name, line] of Object.entries(bounds.limits)) write(`      ${name}: ${line}`);
    return undefined;
  }
  if (readiness.mode === 'unisolated') {
    write(`WARN  sandbox: UNISOLATED by configuration (sandbox.isolation: unisolated-unsafe): commands run on this host unprotected`);
    write('      for local development only; never where other people can message the bot');
    return undefined;
  }
  write(`FAIL  sandbox: ${readiness.reason}; shell agents are refused until this is fixed`);
  return readiness.fix!;
}

/** Which uids this deployment's workspaces run as, and whether anything else on the host runs as one of them. */
function uidRangeLine(range: UidRange, configured: boolean, foreign: Array<{ pid: number; uid: number }>): string {
  const where = `${range.first}…${range.first + range.count - 1} (${configured ? 'sandbox.uids' : "this deployment's own, derived from its data dir; sandbox.uids sets another"})`;
  if (foreign.length === 0) return `uids: ${where}; no process of another deployment or account runs as one of them`;
  const named = foreign
    .slice(0, 5)
    .map(({ pid, uid }) => `pid ${pid} as uid ${uid}`)
    .join(', ');
  return `uids: ${where}; WARNING: ${foreign.length} process${foreign.length === 1 ? '' : 'es'} not of this deployment run${foreign.length === 1 ? 's' : ''} as uids of it (${named}${foreign.length > 5 ? ', …' : ''}): another deployment or account shares the range, and its uids are never handed out here; give each deployment on a host its own sandbox.uids range`;
}

/** Where the env file is and what it gave (its mode: the secrets in it are for this user alone). */
function envFileLine(env: NodeJS.ProcessEnv, cwd: string): string {
  const path = envFilePath(env, cwd);
  if (!existsSync(path)) return `info  env file: none at ${path} (SWITCHBOARD_ENV_FILE; \`npx switchboard setup\` writes it)`;
  const mode = statSync(path).mode & 0o777;
  const count = parseEnvFile(readFileSync(path, 'utf8'), path).size;
  const open = (mode & 0o077) !== 0;
  return `${open ? 'WARN' : 'ok  '}  env file: ${path}, ${count} variable${count === 1 ? '' : 's'}, mode ${mode.toString(8)}${open ? ` (others can read its secrets: chmod 600 ${path})` : ''}`;
}

/** The Debian packages from scripts/system-packages.json, checked by the same script `npm install` runs. */
function systemPackageLines(env: NodeJS.ProcessEnv, problems: string[]): string[] {
  const script = join(projectRoot(), 'scripts', 'check-system.js');
  const run = spawnSync(process.execPath, [script, '--json'], { env: { PATH: env.PATH ?? '' }, encoding: 'utf8' });
  let report: { packages: Array<{ package: string; command: string; for: string; found: string | null }>; install: string | null };
  try {
    report = JSON.parse(run.stdout) as typeof report;
  } catch {
    problems.push(`run \`node ${script}\` to see which system packages are missing`);
    return [`FAIL  system packages: could not check (${run.error?.message ?? run.stderr.trim().split('\n')[0] ?? 'no output'})`];
  }
  const lines = report.packages.map((p) =>
    p.found ? `ok    ${p.command}: ${p.found} (${p.package})` : `FAIL  ${p.command}: not found; Debian package ${p.package}, for ${p.for}`,
  );
  if (report.install) problems.push(`install the missing system packages: ${report.install}`);
  return lines;
}

function onlyParts(value: string): DoctorPart[] {
  const parts = value
    .split(',')
    .map((each) => each.trim())
    .filter(Boolean);
  const unknown = parts.filter((each) => !(DOCTOR_PARTS as readonly string[]).includes(each));
  if (unknown.length > 0 || parts.length === 0) throw new InvalidArgumentError(`parts are ${DOCTOR_PARTS.join(', ')}`);
  return parts as DoctorPart[];
}

function tryResolve(kind: BinaryKind, env: NodeJS.ProcessEnv): string {
  try {
    resolveTemporalBinary(kind, { env });
    return 'found';
  } catch (error) {
    return describeError(error);
  }
}

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      'check the env file, the config, the system packages, the Temporal binaries, model keys, the GitHub App (permissions, events, installation, webhook test delivery) and Slack scopes, the server, the search attributes, the payload store and the sandbox',
    )
    .option('--only <parts>', `only these parts, comma-separated: ${DOCTOR_PARTS.join(', ')}`, onlyParts)
    .action(async (options: { only?: DoctorPart[] }) => {
      process.exitCode = await runDoctor(options.only ? { only: options.only } : {});
    });
}
