import { type Client } from '@temporalio/client';
import { type RequestHandler } from 'express';
import { TokenTable } from '../../infra/api-tokens';
import { type LoadedConfig } from '../../infra/config';
import { type Logger } from '../../infra/logger';
import { SESSION_PATH, serverBaseUrl, sessionKey, sessionLinksFromConfig } from '../../infra/session-links';
import { type Door } from '../api/door';
import { sessionAdmissionFrom } from './admission';
import { doorAdmissionFromConfig, type DoorAdmission } from '../../infra/door-admission';
import { SessionHub } from './hub';
import { createRedactor } from './render/redact';
import { createSessionRouter } from './router';

/**
 * The session pages' mount (`/session`), or undefined when `sessions.enabled` is off. Links are
 * signed with SWITCHBOARD_SESSION_SECRET, else the data dir's key file (infra/session-links.ts).
 * Returns the hub too, for the process to close its watchers at shutdown.
 */
export function sessionMountFromConfig(
  loaded: LoadedConfig,
  client: Client,
  door: Door,
  logger: Logger,
  webUiBaseUrl?: string,
  /** The doors' admission: who may open a page with a token, steer and stop (from the config alone when omitted). */
  admission: Pick<DoorAdmission, 'facts'> = doorAdmissionFromConfig(loaded),
  env: NodeJS.ProcessEnv = process.env,
): { mount: { path: string; handler: RequestHandler }; hub: SessionHub } | undefined {
  const { config } = loaded;
  if (!config.sessions.enabled) return undefined;
  const links = sessionLinksFromConfig(config, env);
  const key = sessionKey(config, env);
  logger.info(
    key.file ? { keyFile: key.file } : {},
    key.file
      ? 'Session page links are signed with the data dir key (delete it to void every link; SWITCHBOARD_SESSION_SECRET wins)'
      : 'Session page links are signed with SWITCHBOARD_SESSION_SECRET',
  );
  const redact = createRedactor(env);
  const webUi = webUiBaseUrl
    ? (id: string) =>
        `${webUiBaseUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(config.temporal.namespace)}/workflows/${encodeURIComponent(id)}`
    : undefined;
  const hub = new SessionHub({
    client,
    logger: logger.child({ component: 'session' }),
    context: () => ({ redact, now: Date.now(), githubWebUrl: config.github.gitUrl, ...(webUi ? { webUi } : {}) }),
  });
  const handler = createSessionRouter({
    hub,
    ...(links ? { links } : {}),
    tokens: new TokenTable(config.api.tokens),
    admission: sessionAdmissionFrom(() => admission.facts()),
    door,
    logger: logger.child({ component: 'session' }),
    secureCookies: serverBaseUrl(config).startsWith('https:'),
  });
  return { mount: { path: SESSION_PATH, handler }, hub };
}
