import { type Payload, type PayloadCodec } from '@temporalio/common';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import { bearerToken, type TokenTable } from '../../infra/api-tokens';
import { ApiError } from '../../infra/errors';
import { type Logger } from '../../infra/logger';
import { isReference, parseReference } from '../../infra/payloads/claim-check-codec';
import { badRequest, sendProblem } from '../api/problem';
import { errorHandler, jsonBody } from '../api/router';
import { payloadFromJson, PayloadsBodySchema, payloadToJson, type PayloadJson } from './payload-json';

export interface CodecRouterOptions {
  codec: PayloadCodec;
  tokens: TokenTable;
  /** Only these token ids may call (else any token that is not self-serve). */
  tokenIds?: readonly string[];
  /** Browser origins answered with CORS headers (credentials allowed). */
  corsOrigins: readonly string[];
  /** Origins whose decode requests from a loopback address need no token (a local Web UI without login). */
  anonymousDecodeOrigins: readonly string[];
  maxBodyBytes: number;
  logger: Logger;
}

/**
 * Temporal's remote-codec protocol: `POST /decode` and `POST /encode`, each taking and
 * answering `{"payloads":[…]}` (proto3 JSON, bytes as base64), with the namespace in
 * `X-Namespace`. The Web UI calls it from the browser (CORS, preflight first); the `temporal`
 * CLI with `--codec-endpoint` and `--codec-auth`. Decode never pretends: a payload whose
 * claim-check content cannot be read comes back as the reference it was, and the log says why.
 */
export function createCodecRouter(options: CodecRouterOptions): Router {
  const router = Router();
  router.use(cors(options.corsOrigins));
  router.use(authorize(options));
  router.use(jsonBody(options.maxBodyBytes));
  router.post('/decode', codecHandler(options, 'decode'));
  router.post('/encode', codecHandler(options, 'encode'));
  router.use((req: Request, res: Response) =>
    sendProblem(res, new ApiError('not_found', `No codec route ${req.method} ${req.path}: POST /decode or /encode.`), req.originalUrl),
  );
  router.use(errorHandler(options.logger));
  return router;
}

/** CORS for the allowed origins; a preflight is answered before any token is asked for (browsers send none). */
function cors(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin && allowed.has(origin)) {
      res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' });
    }
    res.vary('Origin');
    if (req.method !== 'OPTIONS') return next();
    if (origin && allowed.has(origin)) {
      res.set({
        'Access-Control-Allow-Methods': 'POST, OPTIONS',
        'Access-Control-Allow-Headers': req.get('access-control-request-headers') ?? 'Authorization, Content-Type, X-Namespace',
        'Access-Control-Max-Age': '600',
      });
    }
    res.status(204).end();
  };
}

function authorize(options: CodecRouterOptions): RequestHandler {
  const anonymousOrigins = new Set(options.anonymousDecodeOrigins);
  return (req, res, next) => {
    const token = bearerToken(req.get('authorization'));
    if (!token) {
      const origin = req.get('origin');
      if (req.path === '/decode' && origin && anonymousOrigins.has(origin) && fromThisHost(req)) return next();
      return refuse(req, res, 'unauthorized', 'Send Authorization: Bearer <token> (an api.tokens token).');
    }
    const caller = options.tokens.verify(token, 'http');
    if (!caller) return refuse(req, res, 'unauthorized', 'The bearer token is not valid.');
    if (caller.selfServe) return refuse(req, res, 'access_refused', `Token ${caller.tokenId} is self-serve: it may not read payloads.`);
    if (options.tokenIds && !options.tokenIds.includes(caller.tokenId)) {
      return refuse(req, res, 'access_refused', `Token ${caller.tokenId} is not in codec.tokenIds.`);
    }
    next();
  };
}

function refuse(req: Request, res: Response, code: 'unauthorized' | 'access_refused', message: string): void {
  const headers: Record<string, string> = code === 'unauthorized' ? { 'WWW-Authenticate': 'Bearer realm="switchboard"' } : {};
  sendProblem(res, new ApiError(code, message, {}, headers), req.originalUrl);
}

/**
 * A browser on this host talking to us directly: a loopback peer, a loopback Host, and no proxy
 * in between (a reverse proxy on this host would make every caller look local).
 */
function fromThisHost(req: Request): boolean {
  const peer = req.socket.remoteAddress ?? '';
  const host = (req.get('host') ?? '').replace(/:\d+$/, '');
  const proxied = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'].some((name) => req.get(name) !== undefined);
  return !proxied && (/^(::ffff:)?127\./.test(peer) || peer === '::1') && (/^127\./.test(host) || ['localhost', '[::1]'].includes(host));
}

function codecHandler(options: CodecRouterOptions, direction: 'encode' | 'decode'): RequestHandler {
  return async (req, res, next) => {
    try {
      const parsed = PayloadsBodySchema.safeParse(req.body ?? {});
      if (!parsed.success) throw badRequest(parsed.error, 'body');
      const namespace = req.get('x-namespace');
      const payloads =
        direction === 'decode'
          ? await Promise.all(parsed.data.payloads.map((json) => decodeOne(options, json, namespace)))
          : await encodeAll(options.codec, parsed.data.payloads);
      res.json({ payloads });
    } catch (error) {
      next(error);
    }
  };
}

/** A reference becomes the payload it stands for; anything else (or a reference we cannot read) goes back unchanged. */
async function decodeOne(options: CodecRouterOptions, json: PayloadJson, namespace: string | undefined): Promise<PayloadJson> {
  const payload = payloadFromJson(json);
  if (!isReference(payload)) return json;
  try {
    const [decoded] = await options.codec.decode([payload]);
    return payloadToJson(decoded);
  } catch (error) {
    options.logger.warn(
      { namespace, claimCheck: referenceKey(payload), reason: (error as Error).message },
      'codec endpoint: a claim-check payload could not be read; it is returned as the reference',
    );
    return json;
  }
}

async function encodeAll(codec: PayloadCodec, payloads: PayloadJson[]): Promise<PayloadJson[]> {
  const inputs = payloads.map(payloadFromJson);
  const encoded = await codec.encode(inputs);
  // The codec hands back the very object it left alone: that one goes back exactly as it came.
  return encoded.map((payload: Payload, index) => (payload === inputs[index] ? payloads[index] : payloadToJson(payload)));
}

function referenceKey(payload: Payload): string | undefined {
  try {
    return parseReference(payload).claimCheck;
  } catch {
    return undefined;
  }
}
