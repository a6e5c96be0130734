import { type Client } from '@temporalio/client';
import { type RequestHandler } from 'express';
import { TokenTable } from '../../infra/api-tokens';
import { type LoadedConfig } from '../../infra/config';
import { type Logger } from '../../infra/logger';
import { missingSettings } from '../../infra/preflight';
import { doorAdmissionFromConfig, type DoorAdmission } from '../../infra/door-admission';
import { sessionLinksFromConfig } from '../../infra/session-links';
import { createMcpRouter } from '../mcp/http';
import { createDoor, type Door, type DoorOptions } from './door';
import { type AccessOptions } from './door-access';
import { createSpendActivities, reserveThroughLedger } from '../../activities/spend';
import { hasCaps } from '../../infra/config/spend-section';
import { RateLimiter } from './rate-limit';
import { API_BASE, createApiRouter } from './router';

/** The door (what the API and MCP do) for the loaded config and a Temporal client. */
export function doorFromConfig(
  loaded: LoadedConfig,
  client: Client,
  webUiBaseUrl?: string,
  env: NodeJS.ProcessEnv = process.env,
  admission: Pick<DoorAdmission, 'facts'> = doorAdmissionFromConfig(loaded),
): Door {
  const { config } = loaded;
  const links = sessionLinksFromConfig(config, env);
  return createDoor({
    client,
    taskQueue: config.temporal.taskQueue,
    namespace: config.temporal.namespace,
    facts: admission.facts,
    ...spendCheckFromConfig(loaded, client),
    decisionWaitMs: config.api.decisionWaitMs,
    ...(webUiBaseUrl ? { webUiBaseUrl } : {}),
    apiBase: API_BASE,
    preflight: (unit) => missingSettings(loaded, { github: ['read', 'write'], ...(unit.model ? { model: unit.model } : {}) }, env),
    ...(links ? { sessionLink: (workflowId: string) => links.url(workflowId) } : {}),
  });
}

/** The spend-cap check of the doors' own starts and the ledger their units reserve in, when any cap is configured (none: no check at all). */
function spendCheckFromConfig(loaded: LoadedConfig, client: Client): Pick<AccessOptions, 'spend'> & Pick<DoorOptions, 'unitSpend'> {
  const { config } = loaded;
  if (!hasCaps(config.spend)) return {};
  const deps = { client, taskQueue: config.temporal.taskQueue, config: config.spend };
  const spend = createSpendActivities(deps);
  return {
    spend: (scope, now) => spend.checkSpendCaps({ scope, threadId: '', now }),
    unitSpend: { config: config.spend, reserve: (request) => reserveThroughLedger(deps, request) },
  };
}

/**
 * The HTTP API at `/api/v1` and MCP at `/mcp`, sharing one token table and one rate limiter.
 * Always mounted: with no tokens configured every call is 401 and the log says how to add one.
 */
export function apiMountsFromConfig(
  loaded: LoadedConfig,
  client: Client,
  logger: Logger,
  webUiBaseUrl?: string,
  /** Where the unit preflight reads secrets (the worker is assumed to share this environment). */
  env: NodeJS.ProcessEnv = process.env,
  /** The doors' admission (infra/door-admission.ts); from the config alone when omitted (no sandbox readiness). */
  admission?: Pick<DoorAdmission, 'facts'>,
  /** The door, when the process shares it with another front end (the session pages). */
  door: Door = doorFromConfig(loaded, client, webUiBaseUrl, env, admission),
): Array<{ path: string; handler: RequestHandler }> {
  const { api } = loaded.config;
  const tokens = new TokenTable(api.tokens);
  if (tokens.size === 0) logger.info('The HTTP API and MCP have no tokens: add one with `switchboard tokens create --user <id>`');
  const shared = {
    door,
    tokens,
    limiter: new RateLimiter(api.rateLimit),
    maxBodyBytes: api.maxBodyBytes,
    logger: logger.child({ component: 'api' }),
  };
  return [
    { path: API_BASE, handler: createApiRouter(shared) },
    { path: '/mcp', handler: createMcpRouter({ ...shared, askWaitSeconds: api.askWaitSeconds }) },
  ];
}
