import { type Request, type Response } from 'express';
import { type LocalGitHubState, type RepoState, type Scope, type WriteRecord } from './state';
import { type WebhookSender } from './webhook-sender';

/** What every REST route of the local GitHub shares. */
export interface RestContext {
  state: LocalGitHubState;
  /** The web base (`http://host:port`), used in html_url fields. */
  webUrl: string;
  webhooks: WebhookSender;
}

/** The repository named in the path, or a 404 answered (as GitHub does for invisible ones). */
export function repoOf(ctx: RestContext, req: Request, res: Response): RepoState | undefined {
  const found = ctx.state.repo(String(req.params.owner), String(req.params.repo));
  const repo = found?.hiddenFrom?.includes(res.locals.scope as Scope) ? undefined : found;
  if (!repo) res.status(404).json({ message: 'Not Found' });
  return repo;
}

/** Records an applied write (before answering, so a dropped answer still counts). */
export function record(ctx: RestContext, res: Response, write: Omit<WriteRecord, 'user' | 'at' | 'responseDropped'>): void {
  ctx.state.writes.push({ ...write, user: login(res), at: new Date().toISOString(), responseDropped: Boolean(res.locals.dropResponse) });
}

export function login(res: Response): string {
  return String(res.locals.login ?? 'anonymous');
}

/** Answers one page of `items` with GitHub's Link header (per_page, page). */
export function page<T>(req: Request, res: Response, items: T[], wrap?: (slice: T[]) => object): void {
  const perPage = Math.min(100, Math.max(1, Number(req.query.per_page) || 30));
  const current = Math.max(1, Number(req.query.page) || 1);
  const slice = items.slice((current - 1) * perPage, current * perPage);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  if (current < last) {
    const url = new URL(`${req.protocol}://${req.get('host')}${req.originalUrl}`);
    url.searchParams.set('page', String(current + 1));
    url.searchParams.set('per_page', String(perPage));
    const lastUrl = new URL(url);
    lastUrl.searchParams.set('page', String(last));
    res.set('link', `<${url.toString()}>; rel="next", <${lastUrl.toString()}>; rel="last"`);
  }
  res.json(wrap ? wrap(slice) : slice);
}

export function now(): string {
  return new Date().toISOString();
}
