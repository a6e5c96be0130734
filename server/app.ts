import { type Client } from '@temporalio/client';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type Logger } from '../infra/logger';
import { checkHealth, type HealthSources } from './health';
import { type FrontEndMetrics } from './metrics';
import { tracingMiddleware } from './tracing';

export interface ServerDeps {
  /** The Temporal client front ends signal workflows through. */
  client: Client;
  logger: Logger;
  health: HealthSources;
  /** Front ends to mount (GitHub webhooks, Slack, API), each under its own path. */
  mounts?: Array<{ path: string; handler: RequestHandler }>;
  /** Counts and times requests per front end (served by the process's metrics endpoint). */
  metrics?: FrontEndMetrics;
}

/** The front end a mount path belongs to, as the metrics label it. */
export function frontEndName(path: string): string {
  if (path === '/') return 'slack';
  if (path.startsWith('/webhooks/github')) return 'github';
  if (path.startsWith('/api')) return 'api';
  return path.replace(/^\/+/, '').split('/')[0] || 'other';
}

/**
 * The Express app every front end mounts on. Front ends stay thin: verify, normalise,
 * signal a workflow. Errors never reach a caller as a stack trace.
 */
export function createServerApp(deps: ServerDeps): Express {
  const app = express();
  app.disable('x-powered-by');

  if (deps.metrics) app.use('/healthz', deps.metrics.middleware('health'));
  app.get('/healthz', async (_req, res) => {
    const report = await checkHealth(deps.health);
    res.status(report.ok ? 200 : 503).json(report);
  });

  for (const mount of deps.mounts ?? []) {
    if (deps.metrics) app.use(mount.path, deps.metrics.middleware(frontEndName(mount.path)));
    app.use(mount.path, tracingMiddleware(frontEndName(mount.path)));
    app.use(mount.path, mount.handler);
  }

  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found' });
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    deps.logger.error({ err: error }, 'unhandled error in HTTP handler');
    if (!res.headersSent) res.status(500).json({ error: 'internal_error' });
  });
  return app;
}
