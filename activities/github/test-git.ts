import { execFile } from 'node:child_process';

/** The environment variable the credential helper reads the token from (set on git's process only). */
export const GIT_TOKEN_VARIABLE = 'SWITCHBOARD_GIT_TOKEN';

/**
 * `git -c` arguments that clear any configured helper and answer with the token from
 * `SWITCHBOARD_GIT_TOKEN`. The token never appears in a URL, argument list or remote config.
 */
export function gitCredentialArgs(): string[] {
  const helper = `!f() { test "$1" = get || exit 0; echo username=x-access-token; echo "password=$${GIT_TOKEN_VARIABLE}"; }; f`;
  return ['-c', 'credential.helper=', '-c', `credential.helper=${helper}`];
}

export interface GitOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git with the token offered only through the helper; never throws on a non-zero exit. */
export function runGit(
  args: string[],
  options: { cwd: string; token?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv },
): Promise<GitOutcome> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never', ...options.env };
  if (options.token) env[GIT_TOKEN_VARIABLE] = options.token;
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...gitCredentialArgs(), ...args],
      { cwd: options.cwd, env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new Error(`git could not run: ${error.message}`));
          return;
        }
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}
