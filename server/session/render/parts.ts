import type { Redactor } from './redact';

/** What every renderer needs besides its session: the redaction, the clock, and where links go. */
export interface RenderContext {
  redact: Redactor;
  now: number;
  /** GitHub's web address (`https://github.com`, the local GitHub's): repository and PR links. */
  githubWebUrl?: string;
  /** A workflow's page in the Temporal Web UI, when the deployment has one. */
  webUi?: (workflowId: string) => string | undefined;
}

/** One piece of a section that live updates replace whole (a turn, a round). */
export interface Block {
  id: string;
  html: string;
}

export interface Section {
  id: string;
  title: string;
  blocks: Block[];
  /** Said when the section has no block yet. */
  empty?: string;
}

/**
 * A page as its renderer makes it, viewer-independent (links to other workflows are markers,
 * html.ts `pageLink`): the watcher renders once per change and every viewer's page and live
 * update is cut from the same parts.
 */
export interface PageParts {
  title: string;
  kind: 'run' | 'unit' | 'thread' | 'workflow';
  open: boolean;
  /** The header's inner HTML (state and facts). */
  header: string;
  sections: Section[];
  /** Whether a steer box belongs on the page (runs and units take `steer`; threads only `stop`). */
  steerable: boolean;
}

/** The repository's and a pull request's web addresses, when GitHub's web address is known. */
export function githubLinks(context: RenderContext, repo: string | undefined, pullRequest?: number) {
  const base = context.githubWebUrl?.replace(/\/+$/, '');
  const repoUrl = base && repo && /^[\w.-]+\/[\w.-]+$/.test(repo) ? `${base}/${repo}` : undefined;
  return { repoUrl, pullUrl: repoUrl && pullRequest ? `${repoUrl}/pull/${pullRequest}` : undefined };
}
