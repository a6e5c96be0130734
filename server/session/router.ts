import { gzipSync } from 'node:zlib';
import express, { type Request, type RequestHandler, type Response, Router } from 'express';
import { WorkflowNotFoundError } from '@temporalio/client';
import { type TokenTable } from '../../infra/api-tokens';
import { ApiError, API_ERROR_STATUS } from '../../infra/errors';
import { type Logger } from '../../infra/logger';
import { LINK_PARAM, sessionPath, SESSION_PATH, type SessionLinks } from '../../infra/session-links';
import { type Door } from '../api/door';
import { admit, SESSION_COOKIE, sameOrigin, type Viewer } from './access';
import type { SessionAdmission } from './admission';
import type { WorkflowFacts } from '../../infra/history/reader';
import { type SessionHub } from './hub';
import { outputText } from './render/call-view';
import { personalise } from './render/html';
import { renderPage, type ViewerView } from './render/page';
import { NOTICES, pageHeaders, sendRefusal } from './respond';
import type { SessionWatcher } from './watcher';

export interface SessionRouterOptions {
  hub: SessionHub;
  /** The link signer; none only in tests of token-only access (a deployment always has one: infra/session-links.ts). */
  links?: SessionLinks;
  tokens: TokenTable;
  /** The admission seam (admission.ts): may this person view without a link, steer, stop? */
  admission: SessionAdmission;
  /** Where steers and stops go: the API's door, as for every other front end. */
  door: Pick<Door, 'steerWorkflow' | 'stopWorkflow'>;
  logger: Logger;
  /** Mark the sign-in cookie Secure (the server is reached over https). */
  secureCookies?: boolean;
  /** A comment line this often keeps proxies from closing a quiet stream. */
  keepAliveMs?: number;
}

/** A whole output served on its own is bounded too. */
const OUTPUT_LIMIT = 512 * 1024;

/**
 * `/session`: a live page per thread, run and unit. `GET /session/<id>` is the page (a signed
 * link or an API token opens it; nothing opens without one), `/events` its live updates
 * (server-sent events from the workflow's one watcher), `/output/<run>/<event>` a call's whole
 * output, `POST /steer` and `/stop` the page's forms (a signed-in person the admission allows),
 * and `POST /session/sign-in` / `sign-out` the browser's API token cookie.
 */
export function createSessionRouter(options: SessionRouterOptions): Router {
  const router = Router();
  const { hub, links, tokens } = options;
  const forms = [express.urlencoded({ extended: false, limit: '16kb' }), express.json({ limit: '16kb' })];

  router.post('/sign-in', ...forms, (req, res) => {
    const next = safeNext(req.query.next ?? req.body?.next);
    if (!sameOrigin(req)) return sendRefusal(res, 403, 'Sign in from a page of this server.');
    const token = typeof req.body?.token === 'string' ? req.body.token.trim() : '';
    if (!tokens.verify(token, 'http')) return sendRefusal(res, 401, 'That is not a valid API token.');
    res.cookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      path: SESSION_PATH,
      secure: Boolean(options.secureCookies),
      maxAge: 12 * 3_600_000,
    });
    res.redirect(303, withNotice(next, 'signed_in'));
  });

  router.post('/sign-out', ...forms, (req, res) => {
    // Like every form here: another site's page may not sign a person out behind their back.
    if (!sameOrigin(req)) return sendRefusal(res, 403, 'Sign out from a page of this server.');
    res.clearCookie(SESSION_COOKIE, { path: SESSION_PATH });
    res.redirect(303, withNotice(safeNext(req.query.next ?? req.body?.next), 'signed_out'));
  });

  router.get(
    '/:workflowId',
    guarded(async (req, res, id, viewer, watcher) => {
      const nonce = pageHeaders(res);
      const sign = signer(viewer, links);
      const here = sign(id, '');
      const notice = typeof req.query.notice === 'string' ? NOTICES[req.query.notice] : undefined;
      sendHtml(
        req,
        res,
        renderPage({
          parts: watcher.parts!,
          workflowId: id,
          viewer: await viewerView(viewer, watcher.facts),
          nonce,
          sign,
          urls: {
            events: sign(id, '/events'),
            steer: sign(id, '/steer'),
            stop: sign(id, '/stop'),
            signIn: `${SESSION_PATH}/sign-in?next=${encodeURIComponent(here)}`,
            signOut: `${SESSION_PATH}/sign-out?next=${encodeURIComponent(here)}`,
          },
          version: watcher.version,
          ...(notice ? { notice } : {}),
        }),
      );
    }),
  );

  router.get(
    '/:workflowId/events',
    guarded(async (req, res, _id, viewer, watcher) => {
      pageHeaders(res);
      res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'X-Accel-Buffering': 'no' });
      res.flushHeaders();
      const sign = signer(viewer, links);
      const send = (event: string, data: unknown) => {
        if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      const deliver = (update: ReturnType<SessionWatcher['full']>) => {
        send('update', {
          ...update,
          ...(update.header !== undefined ? { header: personalise(update.header, sign) } : {}),
          blocks: update.blocks.map((b) => ({ ...b, html: personalise(b.html, sign) })),
        });
        if (!update.open) {
          send('end', {});
          res.end();
        }
      };
      // A page that missed versions (or a new one) gets every block once.
      if (req.query.since !== String(watcher.version) || !watcher.open) deliver(watcher.full());
      if (!watcher.open) return;
      const unsubscribe = watcher.subscribe(deliver);
      const keepAlive = setInterval(() => !res.writableEnded && res.write(': keep-alive\n\n'), options.keepAliveMs ?? 15_000);
      res.on('close', () => {
        unsubscribe();
        clearInterval(keepAlive);
      });
    }),
  );

  router.get(
    '/:workflowId/output/:runId/:eventId',
    guarded(async (req, res, _id, _viewer, watcher) => {
      pageHeaders(res);
      const activity = watcher.activity(String(req.params.runId), Number(req.params.eventId));
      if (!activity) return sendRefusal(res, 404, 'There is no such call output.');
      const text = hub.renderContext().redact(outputText(activity));
      res
        .type('text/plain; charset=utf-8')
        .send(
          text.length > OUTPUT_LIMIT ? `${text.slice(0, OUTPUT_LIMIT)}\n… ${text.length - OUTPUT_LIMIT} more characters not shown` : text,
        );
    }),
  );

  for (const action of ['steer', 'stop'] as const) {
    router.post(
      `/:workflowId/${action}`,
      ...forms,
      guarded(
        async (req, res, id, viewer, watcher) => {
          const json = req.accepts(['html', 'json']) === 'json';
          const back = signer(viewer, links)(id, '');
          const answer = (status: number, code: string, message = NOTICES[code] ?? code) => {
            if (json) return void res.status(status).json({ ok: status < 300, code, message });
            // Without the script: done goes back to the page (303: a reload posts nothing again); refused says why.
            if (status < 300) return res.redirect(303, withNotice(back, code));
            sendRefusal(res, status, message, back);
          };
          const person = viewer.person;
          if (!person) return answer(401, 'unauthorized');
          if (person.via === 'cookie' && !sameOrigin(req)) return answer(403, 'access_refused', 'Send the form from its page.');
          const decision = await options.admission({ person: person.caller, workflow: watcher.facts, action });
          if (!decision.ok) return answer(403, 'access_refused', decision.message);
          const text = String(req.body?.text ?? '').trim();
          const reason = String(req.body?.reason ?? '').trim();
          if (action === 'steer' && (!text || text.length > 8_000)) return answer(400, 'bad_request');
          try {
            if (action === 'steer') await options.door.steerWorkflow(person.caller, id, text);
            else await options.door.stopWorkflow(person.caller, id, reason.slice(0, 500) || undefined);
            answer(action === 'steer' ? 200 : 202, action === 'steer' ? 'steered' : 'stopped');
          } catch (error) {
            if (!(error instanceof ApiError)) throw error;
            answer(API_ERROR_STATUS[error.code], error.code, error.message);
          }
        },
        { action: true },
      ),
    );
  }

  return router;

  /** What the page offers this viewer: a person's steer box and stop button, as far as the admission allows. */
  async function viewerView(viewer: Viewer, facts: WorkflowFacts): Promise<ViewerView> {
    const person = viewer.person;
    if (!person) return { who: 'a signed link', person: false, may: { steer: false, stop: false } };
    const steer = await options.admission({ person: person.caller, workflow: facts, action: 'steer' });
    const stop = await options.admission({ person: person.caller, workflow: facts, action: 'stop' });
    return {
      who: `${person.caller.userId} (API token ${person.caller.tokenId})`,
      person: true,
      may: { steer: steer.ok, stop: stop.ok, ...(!steer.ok ? { why: steer.message } : !stop.ok ? { why: stop.message } : {}) },
    };
  }

  /**
   * Every workflow route: the viewer is admitted before Temporal is asked anything (an unsigned,
   * expired or other-workflow link gets 401/403 and nothing else), then the workflow is described
   * and its one watcher found or started.
   */
  function guarded(
    handle: (req: Request, res: Response, id: string, viewer: Viewer, watcher: SessionWatcher) => Promise<void>,
    mode: { action?: boolean } = {},
  ): RequestHandler {
    return async (req, res) => {
      const id = String(req.params.workflowId ?? '');
      try {
        const admitted = admit(req, id, links, tokens);
        if (!admitted.ok) return sendRefusal(res, admitted.status, admitted.reason);
        const { viewer } = admitted;
        const facts = hub.existing(id)?.facts ?? (await hub.reader.describe(id));
        if (!viewer.link && !mode.action) {
          const decision = await options.admission({ person: viewer.person!.caller, workflow: facts, action: 'view' });
          if (!decision.ok) return sendRefusal(res, 403, decision.message);
        }
        const watcher = await hub.watch(facts);
        if (!watcher) return sendRefusal(res, 404, 'This workflow has no session page (threads, runs and units do).');
        await handle(req, res, id, viewer, watcher);
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return sendRefusal(res, 404, 'There is no such workflow.');
        options.logger.error({ err: error, workflowId: id }, 'session page failed');
        if (!res.headersSent) sendRefusal(res, 503, 'The session could not be read right now; try again shortly.');
        else res.end();
      }
    };
  }
}

/** Links on the page for this viewer: signed with the viewer's own expiry when a link opened it, plain for a person. */
function signer(viewer: Viewer, links: SessionLinks | undefined) {
  return (workflowId: string, suffix: string): string => {
    const path = `${sessionPath(workflowId)}${suffix}`;
    return viewer.link && links ? `${path}?${LINK_PARAM}=${links.token(workflowId, viewer.link.expiresAt)}` : path;
  };
}

/** Only a page of this server is a place to go back to (never an open redirect). */
function safeNext(value: unknown): string {
  const next = typeof value === 'string' ? value : '';
  return next.startsWith(`${SESSION_PATH}/`) && !next.startsWith('//') && !/[\r\n\\]/.test(next) ? next : `${SESSION_PATH}/`;
}

/** A page, gzipped for a client that takes it (a long run's page is mostly repeated markup). */
function sendHtml(req: Request, res: Response, html: string): void {
  res.type('html').vary('Accept-Encoding');
  if (html.length < 16 * 1024 || req.acceptsEncodings('gzip') !== 'gzip') return void res.send(html);
  res.set('Content-Encoding', 'gzip').send(gzipSync(html));
}

function withNotice(path: string, code: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}notice=${encodeURIComponent(code)}`;
}
