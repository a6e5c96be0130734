import { randomBytes } from 'node:crypto';
import { type Response } from 'express';
import { PAGE_STYLE } from './render/assets';
import { esc } from './render/html';

/** A fresh nonce and the headers every session response carries: nothing cached, no referrer (links carry tokens), nothing framed. */
export function pageHeaders(res: Response): string {
  const nonce = randomBytes(16).toString('base64');
  res.set({
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy':
      `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; ` +
      "img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  });
  return nonce;
}

/** A refusal or an error as a small page that shows nothing of the workflow. */
export function sendRefusal(res: Response, status: number, reason: string, back?: string): void {
  const nonce = pageHeaders(res);
  const title =
    { 401: 'Not signed in', 403: 'Not for you', 404: 'Not found', 409: 'Not now', 503: 'Temporarily unavailable' }[status] ?? 'Refused';
  if (status === 401) res.set('WWW-Authenticate', 'Bearer realm="switchboard"');
  res
    .status(status)
    .type('html')
    .send(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
        `<title>${esc(title)} · Switchboard</title><style nonce="${nonce}">${PAGE_STYLE}</style></head><body>` +
        `<main id="main"><h1>${esc(title)}</h1><p>${esc(reason)}</p>${back ? `<p><a href="${esc(back)}">Back to the page</a></p>` : ''}</main></body></html>`,
    );
}

/** What a page says after a form post without the script (`?notice=<code>`). */
export const NOTICES: Record<string, string> = {
  steered: 'Steer sent: it joins before the next turn.',
  stopped: 'Stop sent: the workflow settles as stopped.',
  signed_in: 'Signed in.',
  signed_out: 'Signed out.',
  steer_rejected: 'The steer was refused: the workflow has finished, or takes no steer.',
  job_finished: 'It has already finished.',
  access_refused: 'You may not steer or stop this workflow.',
  not_found: 'There is no such workflow.',
  bad_request: 'The form was empty or too long.',
  temporal_unavailable: 'Temporal is not reachable right now; try again shortly.',
  unauthorized: 'Sign in with an API token first.',
};
