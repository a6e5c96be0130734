import { dirname } from 'node:path';
import { type IsolationMode } from './isolation';
import { SANDBOX_VIEW, type WorkspaceLayout } from './workspace-layout';

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Where a command finds the workspace's network door, and which git host it stands in for. */
export interface DoorAddress {
  port: number;
  /** The real git host (`https://github.com`); git URLs under it are rewritten to the door. */
  gitBaseUrl: string;
}

/**
 * The whole environment a command sees. It is built from nothing, never copied from the
 * worker, so no secret the worker holds (GITHUB_*, SLACK_*, ANTHROPIC_*, OPENAI_*) can leak;
 * and it names no token: git reaches the git host through the door, which adds the run's
 * token outside the sandbox.
 */
export function commandEnvironment(layout: WorkspaceLayout, mode: IsolationMode, door?: DoorAddress): Record<string, string> {
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
    // The host's /etc/gitconfig is not the sandbox's business (and is hidden in it).
    GIT_CONFIG_NOSYSTEM: '1',
    ...(door ? doorEnvironment(door, mode) : {}),
    // Lets releaseWorkspace find this workspace's leftover jobs when there is no sandbox.
    SWITCHBOARD_WORKSPACE: layout.name,
  };
}

/**
 * Isolated, the sandbox's only route out is the door, so the usual proxy variables point
 * at it (curl, git, npm, pip and most HTTP clients honour them). In both modes git URLs
 * under the git host are rewritten to the door's git endpoint: clones keep their real,
 * token-less remote URL, and the token is added on the worker's side of the door.
 */
function doorEnvironment(door: DoorAddress, mode: IsolationMode): Record<string, string> {
  const url = `http://127.0.0.1:${door.port}`;
  const proxies: Record<string, string> =
    mode === 'bwrap'
      ? {
          HTTP_PROXY: url,
          HTTPS_PROXY: url,
          http_proxy: url,
          https_proxy: url,
          NO_PROXY: '127.0.0.1,localhost,::1',
          no_proxy: '127.0.0.1,localhost,::1',
        }
      : {};
  return {
    ...proxies,
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `url.${url}/git/.insteadOf`,
    GIT_CONFIG_VALUE_0: `${door.gitBaseUrl.replace(/\/+$/, '')}/`,
  };
}
