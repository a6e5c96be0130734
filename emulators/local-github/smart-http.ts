import { spawn } from 'node:child_process';
import { type IncomingMessage, type ServerResponse } from 'node:http';

export interface GitRequest {
  owner: string;
  repo: string;
  /** The path after `<repo>.git`, e.g. `/info/refs` or `/git-receive-pack`. */
  rest: string;
  /** True for a push (`git-receive-pack`). */
  isPush: boolean;
}

/** Recognises git's smart-HTTP URLs: `/<owner>/<repo>.git/...`. */
export function parseGitPath(url: string): GitRequest | undefined {
  const parsed = new URL(url, 'http://local');
  const match = /^\/([^/]+)\/([^/]+?)\.git(\/.*)$/.exec(parsed.pathname);
  if (!match) return undefined;
  const isPush = match[3] === '/git-receive-pack' || parsed.searchParams.get('service') === 'git-receive-pack';
  return { owner: match[1], repo: match[2], rest: match[3], isPush };
}

/** Reads HTTP Basic credentials; git sends the token as the password. */
export function basicPassword(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization ?? '';
  const match = /^Basic\s+(.+)$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1) || undefined;
}

/**
 * Serves one smart-HTTP request with `git http-backend` as a CGI program: the real git wire
 * protocol, over the bare repositories under `projectRoot`. Resolves when the answer is sent.
 */
export function serveGit(req: IncomingMessage, res: ServerResponse, projectRoot: string, path: string, user: string): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://local');
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: path,
      REQUEST_METHOD: req.method ?? 'GET',
      QUERY_STRING: url.search.replace(/^\?/, ''),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      REMOTE_USER: user,
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      GIT_CONFIG_NOSYSTEM: '1',
      // Partial clone, as GitHub serves it: `--filter=blob:none` (and the other filters), and a
      // later fetch of any object by id (how a partial clone brings a blob when it needs it).
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'uploadpack.allowFilter',
      GIT_CONFIG_VALUE_0: 'true',
      GIT_CONFIG_KEY_1: 'uploadpack.allowAnySHA1InWant',
      GIT_CONFIG_VALUE_1: 'true',
    },
  });
  req.pipe(child.stdin);
  return new Promise((resolve) => {
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const at = line.indexOf(':');
        const name = line.slice(0, at).trim();
        const value = line.slice(at + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      res.write(head.subarray(end + 4));
    });
    child.on('close', (code) => {
      if (!headersDone) res.statusCode = code === 0 ? 200 : 500;
      res.end();
      resolve();
    });
    child.on('error', () => {
      res.statusCode = 500;
      res.end();
      resolve();
    });
  });
}
