import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type IsolationMode } from './isolation';
import { SANDBOX_VIEW, type WorkspaceLayout } from './workspace-layout';

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The whole environment a command sees. It is built from nothing, never copied from the
 * worker, so no token the worker holds (GITHUB_*, SLACK_*, ANTHROPIC_*, OPENAI_*) can leak.
 */
export function commandEnvironment(layout: WorkspaceLayout, mode: IsolationMode): Record<string, string> {
  const view = mode === 'bwrap' ? SANDBOX_VIEW : layout;
  // The worker's node is on PATH too, so `npm test` works without a separate install.
  const nodeDir = dirname(process.execPath);
  const path = SYSTEM_PATH.split(':').includes(nodeDir) ? SYSTEM_PATH : `${SYSTEM_PATH}:${nodeDir}`;
  return {
    PATH: path,
    HOME: view.home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: view.tmp,
    // Git must fail rather than wait for a password nobody can type; pagers would hang too.
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    // Lets releaseWorkspace find this workspace's leftover jobs when there is no sandbox.
    SWITCHBOARD_WORKSPACE: layout.name,
  };
}

/** A per-call git credential helper; `remove` deletes it when the call ends. */
export interface CredentialHelper {
  env: Record<string, string>;
  remove(): Promise<void>;
}

/**
 * Offers a token to git only: a helper script answers `git credential fill` for the
 * configured git host, configured through GIT_CONFIG_* variables that name the script,
 * never the token, so `env` and `printenv` do not show it.
 */
export async function writeCredentialHelper(
  layout: WorkspaceLayout,
  mode: IsolationMode,
  token: string,
  gitBaseUrl: string,
): Promise<CredentialHelper> {
  const file = `credential-${randomBytes(8).toString('hex')}.sh`;
  const hostPath = join(layout.credentials, file);
  const viewPath = mode === 'bwrap' ? `${SANDBOX_VIEW.credentials}/${file}` : hostPath;
  const quoted = `'${token.replace(/'/g, `'\\''`)}'`;
  const script = [
    '#!/bin/sh',
    '# Switchboard: the run identity for git, for one command only.',
    '[ "$1" = get ] || exit 0',
    'echo username=x-access-token',
    `printf 'password=%s\\n' ${quoted}`,
    '',
  ].join('\n');
  await writeFile(hostPath, script, { mode: 0o700 });
  return {
    env: {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: `credential.${gitBaseUrl.replace(/\/+$/, '')}.helper`,
      GIT_CONFIG_VALUE_0: viewPath,
    },
    remove: () => rm(hostPath, { force: true }),
  };
}
