import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../infra/paths';

/** `npm start`'s process (`node dist/infra/main.js`) with an environment a test chooses. */
export interface SwitchboardProcess {
  pid: number;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** SIGTERM (a graceful shutdown) and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Spawns the entry point with a minimal environment (PATH, HOME, JSON logs) plus `env`; the
 * caller waits on what it needs (`/healthz`, the exit) rather than on time. With `args`, the
 * operator command instead (`bin/switchboard.js worker`, `… server`).
 */
export function spawnSwitchboard(options: {
  env: Record<string, string>;
  cwd?: string;
  args?: string[];
  /**
   * `npm start` itself (its own script, without the build it runs first), in a process group of
   * its own as a terminal's foreground job: `pid` is then the group's, and `process.kill(-pid)`
   * signals every process in it, as Ctrl-C does.
   */
  npmStart?: boolean;
}): SwitchboardProcess {
  const entry = options.args
    ? [join(projectRoot(), 'bin', 'switchboard.js'), ...options.args]
    : [join(projectRoot(), 'dist', 'infra', 'main.js')];
  const [file, argv] = options.npmStart ? ['npm', ['start', '--ignore-scripts', '--silent']] : [process.execPath, entry];
  const child: ChildProcess = spawn(file, argv, {
    detached: options.npmStart ?? false,
    cwd: options.cwd ?? projectRoot(),
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      SWITCHBOARD_LOG_FORMAT: 'json',
      // Never a developer's own switchboard.env from the project folder.
      SWITCHBOARD_ENV_FILE: join(tmpdir(), 'switchboard-tests-have-no-env-file', 'switchboard.env'),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    pid: child.pid!,
    output: () => text,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The messages of the JSON log lines a process wrote (other lines are kept as they are). */
export function logMessages(output: string): string[] {
  return output
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      try {
        const msg = (JSON.parse(line) as { msg?: unknown }).msg;
        return typeof msg === 'string' ? msg : line;
      } catch {
        return line;
      }
    });
}
