import { type Request } from 'express';
import { bearerToken, type Caller, type TokenTable } from '../../infra/api-tokens';
import { LINK_PARAM, type LinkRefusal, type SessionLinks } from '../../infra/session-links';

/** The cookie a browser keeps its API token in after signing in on a page (HttpOnly, SameSite=Strict, /session only). */
export const SESSION_COOKIE = 'switchboard_session';

/** Who reads a page: a signed link for this workflow, a person (an API token), or both. */
export interface Viewer {
  link?: { token: string; expiresAt: number };
  person?: { caller: Caller; via: 'bearer' | 'cookie' };
}

export type Admitted = { ok: true; viewer: Viewer } | { ok: false; status: 401 | 403; reason: string };

const LINK_WORDS: Record<LinkRefusal, string> = {
  missing: 'This page opens with the signed link from its status card, or with an API token.',
  malformed: 'This link is not a valid session link.',
  bad_signature: 'This link is not a valid session link.',
  expired: 'This link has expired. Open the link on the status card again, or use an API token.',
  other_workflow: 'This link is for another workflow.',
};

/**
 * The viewer of a request for one workflow's page, checked before anything is read from
 * Temporal: a link must be signed for exactly this workflow and unexpired (401, or 403 when it
 * is another workflow's); a token must be one of `api.tokens`. Whether a person without a link may
 * see this workflow is the admission's to say (the router asks it).
 */
export function admit(req: Request, workflowId: string, links: SessionLinks | undefined, tokens: TokenTable): Admitted {
  const viewer: Viewer = {};
  const person = personOf(req, tokens);
  if (person === 'invalid') return { ok: false, status: 401, reason: 'The API token is not valid.' };
  if (person) viewer.person = person;
  const token = typeof req.query[LINK_PARAM] === 'string' ? req.query[LINK_PARAM] : undefined;
  if (token !== undefined || !viewer.person) {
    const check = links ? links.check(workflowId, token) : ({ ok: false, refusal: token ? 'bad_signature' : 'missing' } as const);
    if (check.ok) viewer.link = { token: token!, expiresAt: check.expiresAt };
    // A person with a stale link still gets in as themselves; without a person, the link is all there is.
    else if (!viewer.person)
      return { ok: false, status: check.refusal === 'other_workflow' ? 403 : 401, reason: LINK_WORDS[check.refusal] };
  }
  return { ok: true, viewer };
}

/** The person behind a bearer token or the sign-in cookie; 'invalid' for a bearer token that is not one of ours. */
export function personOf(req: Request, tokens: TokenTable): Viewer['person'] | 'invalid' | undefined {
  const bearer = bearerToken(req.get('authorization'));
  if (bearer) {
    const caller = tokens.verify(bearer, 'http');
    return caller ? { caller, via: 'bearer' } : 'invalid';
  }
  const cookie = cookieOf(req, SESSION_COOKIE);
  const caller = cookie ? tokens.verify(cookie, 'http') : undefined;
  return caller ? { caller, via: 'cookie' } : undefined;
}

export function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) {
      try {
        return decodeURIComponent(rest.join('='));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * A form post that rides on the sign-in cookie must come from a page of this server: the cookie
 * is SameSite=Strict already, and the browser's own Sec-Fetch-Site or Origin must agree.
 */
export function sameOrigin(req: Request): boolean {
  const site = req.get('sec-fetch-site');
  if (site) return site === 'same-origin' || site === 'none';
  const origin = req.get('origin');
  if (!origin) return false;
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}
