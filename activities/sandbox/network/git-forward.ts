import { request as httpRequest, type IncomingMessage, type ServerResponse, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type DoorGrant } from './door-grant';
import { answerRefusedPush, DEFAULT_PUSH_POLICY, judgePush, type PushPolicy } from './receive-pack';

/** The door path a sandbox's git talks to: `/git/<owner>/<repo>[.git]/<smart-HTTP endpoint>`. */
export const GIT_DOOR_PREFIX = '/git/';

const GIT_PATH = /^\/git\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/;

/** Request headers git's smart HTTP needs upstream; everything else (cookies, auth the sandbox made up) stays behind. */
const FORWARDED_REQUEST_HEADERS = [
  'accept',
  'accept-encoding',
  'content-encoding',
  'content-type',
  'content-length',
  'git-protocol',
  'user-agent',
];
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

export interface GitForwardOptions {
  /** The real git host (`https://github.com`, or the local GitHub in tests). */
  gitBaseUrl: string;
  identityToken?: (scope: 'read' | 'write') => Promise<string | undefined>;
  /** The rules a push's ref updates are judged by (receive-pack.ts); the defaults when absent. */
  pushPolicy?: PushPolicy;
  onRefusal?: (details: { repo: string; service: string; reason: string }) => void;
}

export type GitRoute = { ok: true; repo: string; service: string; endpoint: string; upstreamPath: string } | { ok: false; reason: string };

/** Paths of the git host that look like `<owner>/<name>` and are not repositories (GitHub Enterprise serves its API under /api/). */
const NOT_OWNERS = new Set(['api']);

/**
 * What a door request asks git to do, and whether this grant lets it. Only git's own smart-HTTP
 * requests pass: `GET info/refs?service=<git-upload-pack|git-receive-pack>` and `POST` to
 * `git-upload-pack` or `git-receive-pack`, with no other method and no other query.
 */
export function routeGitRequest(url: URL, grant: DoorGrant | undefined, method = 'GET'): GitRoute {
  const match = GIT_PATH.exec(url.pathname);
  if (!match) return { ok: false, reason: 'only git smart-HTTP requests (info/refs, git-upload-pack, git-receive-pack) pass this door' };
  const [, owner, name, dotGit = '', endpoint] = match;
  if (/^\.+$/.test(owner) || /^\.+$/.test(name) || NOT_OWNERS.has(owner.toLowerCase()))
    return { ok: false, reason: 'that is not a repository name' };
  const query = [...url.searchParams.keys()];
  const service = endpoint === 'info/refs' ? (url.searchParams.get('service') ?? '') : endpoint;
  if (service !== 'git-upload-pack' && service !== 'git-receive-pack')
    return { ok: false, reason: 'git needs the smart-HTTP protocol here' };
  if (endpoint === 'info/refs' ? method !== 'GET' : method !== 'POST')
    return {
      ok: false,
      reason: `git's smart HTTP does not ${method} ${endpoint}: only GET info/refs and POST to the service pass this door`,
    };
  if (endpoint === 'info/refs' ? query.length !== 1 || url.search !== `?service=${service}` : url.search !== '')
    return {
      ok: false,
      reason: `this door passes no query but ${endpoint === 'info/refs' ? `?service=${service}` : 'none'} to ${endpoint}`,
    };
  const repo = `${owner}/${name}`;
  if (!grant) return { ok: false, reason: 'no run is using this workspace right now, so its git door is shut' };
  if (!grant.network) return { ok: false, reason: "this run's machine class has no network" };
  if (service === 'git-receive-pack') {
    if (grant.identity !== 'write')
      return { ok: false, reason: `this run's GitHub identity is '${grant.identity}': it may fetch but never push` };
    if (!grant.repo) return { ok: false, reason: 'this run is bound to no repository, so it may not push' };
    if (grant.repo.toLowerCase() !== repo.toLowerCase())
      return { ok: false, reason: `this run may push only to ${grant.repo}, not to ${repo}` };
  }
  // Rebuilt, not copied: the git host sees exactly the path and query judged here.
  const upstreamQuery = endpoint === 'info/refs' ? `?service=${service}` : '';
  return { ok: true, repo, service, endpoint, upstreamPath: `/${owner}/${name}${dotGit}/${endpoint}${upstreamQuery}` };
}

/**
 * Forwards one smart-HTTP request to the real git host with the run's token added here,
 * outside the sandbox: the sandbox's remote URL, config, environment and files never
 * carry it. Streams both ways (packs can be large).
 */
export async function forwardGit(
  req: IncomingMessage,
  res: ServerResponse,
  grant: DoorGrant | undefined,
  options: GitForwardOptions,
): Promise<void> {
  const route = routeGitRequest(new URL(req.url ?? '/', 'http://door'), grant, req.method);
  if (!route.ok) {
    options.onRefusal?.({ repo: req.url ?? '', service: '', reason: route.reason });
    refuse(res, route.reason);
    return;
  }
  // A push's ref updates are judged before a byte of it reaches the git host.
  let body: { read: Buffer; ended: boolean } | undefined;
  if (route.endpoint === 'git-receive-pack') {
    const decision = await judgePush(req, grant!, route.repo, options.pushPolicy ?? DEFAULT_PUSH_POLICY);
    if (!decision.forward) {
      options.onRefusal?.({ repo: route.repo, service: route.service, reason: decision.summary });
      await answerRefusedPush(req, res, decision);
      return;
    }
    body = decision;
  }
  const scope = grant!.identity;
  const token = scope === 'none' ? undefined : await options.identityToken?.(scope);
  const upstreamUrl = new URL(options.gitBaseUrl.replace(/\/+$/, '') + route.upstreamPath);
  const headers: OutgoingHttpHeaders = {};
  for (const name of FORWARDED_REQUEST_HEADERS) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  if (req.headers['transfer-encoding'] && headers['content-length'] === undefined) headers['transfer-encoding'] = 'chunked';
  if (token) headers.authorization = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const send = upstreamUrl.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send(upstreamUrl, { method: req.method, headers });
  upstream.on('response', (answer) => {
    const forwarded: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) forwarded[name] = value;
    res.writeHead(answer.statusCode ?? 502, forwarded);
    answer.pipe(res);
  });
  upstream.on('error', (error) => {
    if (!res.headersSent) refuse(res, `the git host could not be reached: ${error.message}`, 502);
    else res.destroy();
  });
  req.on('aborted', () => upstream.destroy());
  if (body?.ended) upstream.end(body.read);
  else {
    if (body) upstream.write(body.read);
    req.pipe(upstream);
  }
}

/** A plain-text refusal; git shows a text/plain error body to the person as `remote:` lines. */
export function refuse(res: ServerResponse, reason: string, status = 403): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-switchboard-refused': 'true' });
  res.end(`Switchboard refused this request: ${reason}\n`);
}
