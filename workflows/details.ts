// The Web UI's "Details" of runs, units and plans: markdown, pure and deterministic, so both
// workflow code (a run started as a child) and clients (a unit started by an activity or the
// CLI) write the same text. Links to other workflows are relative: the Web UI resolves them.

export interface StaticDetailsInput {
  kind: 'run' | 'unit' | 'plan';
  request?: string;
  requester?: { id: string; displayName?: string };
  agent?: string;
  repo?: string;
  pullRequest?: number;
  /** The thread (or parent) workflow that asked. */
  threadId?: string;
  namespace?: string;
  /** GitHub's web base (`https://github.com`) for PR links; plain `owner/name#n` without it. */
  githubWebUrl?: string;
}

/** Details are shown in full; the request is cut so the text stays small. */
const REQUEST_LIMIT = 1_500;

export function staticDetails(input: StaticDetailsInput): string {
  const lines: string[] = [];
  if (input.request) lines.push(`**Request:** ${oneParagraph(input.request)}`, '');
  if (input.requester) {
    const who = input.requester.displayName ? `${input.requester.displayName} (\`${input.requester.id}\`)` : `\`${input.requester.id}\``;
    lines.push(`- **Requester:** ${who}`);
  }
  if (input.agent) lines.push(`- **Agent:** ${input.agent}`);
  if (input.repo) lines.push(`- **Repository:** ${input.githubWebUrl ? `[${input.repo}](${webBase(input)}/${input.repo})` : input.repo}`);
  if (input.repo && input.pullRequest) {
    const ref = `${input.repo}#${input.pullRequest}`;
    lines.push(`- **Pull request:** ${input.githubWebUrl ? `[${ref}](${webBase(input)}/${input.repo}/pull/${input.pullRequest})` : ref}`);
  }
  if (input.threadId) {
    const link = `/namespaces/${encodeURIComponent(input.namespace ?? 'default')}/workflows/${encodeURIComponent(input.threadId)}`;
    lines.push(`- **Thread:** [${input.threadId}](${link})`);
  }
  return lines.join('\n').trim();
}

export interface CurrentDetailsInput {
  phase: string;
  round?: { current: number; of: number };
  lastVerdict?: { verdict: string; commitSha: string };
  checks?: string;
  nextTimer?: { purpose: string; at: string };
  /** Anything else worth a line (a run's status line, a plan's progress). */
  note?: string;
  /** Malformed signals dropped (workflows/input-guard.ts), in words. */
  dropped?: string;
  /**
   * A thread's runs: its current run, and the Web UI's list of every run of the thread (by the
   * `Thread` search attribute: a run is started by a local activity, not as the thread's child).
   */
  runs?: { namespace: string; threadId: string; current?: string };
}

/** The Web UI's "Current details": what the workflow is doing now and what it waits for. */
export function currentDetails(input: CurrentDetailsInput): string {
  // The blank line makes the rest a list: the Web UI's markdown does not let a list interrupt a paragraph.
  const lines = [`**Phase:** ${input.phase}`, ''];
  if (input.round) lines.push(`- **Round:** ${input.round.current} of ${input.round.of}`);
  if (input.lastVerdict) lines.push(`- **Last review:** ${input.lastVerdict.verdict} on \`${input.lastVerdict.commitSha.slice(0, 12)}\``);
  if (input.checks) lines.push(`- **Checks:** ${input.checks}`);
  if (input.nextTimer) lines.push(`- **Next timer:** ${input.nextTimer.purpose} at ${input.nextTimer.at}`);
  if (input.note) lines.push(`- ${oneParagraph(input.note)}`);
  if (input.dropped) lines.push(`- **Dropped inputs:** ${oneParagraph(input.dropped)}`);
  if (input.runs) lines.push(`- **Runs:** ${runLinks(input.runs)}`);
  return lines.join('\n').trim();
}

function runLinks(runs: NonNullable<CurrentDetailsInput['runs']>): string {
  const base = `/namespaces/${encodeURIComponent(runs.namespace)}/workflows`;
  const all = `${base}?query=${encodeURIComponent(`Thread="${runs.threadId}"`)}`;
  const current = runs.current ? `[${runs.current}](${base}/${encodeURIComponent(runs.current)}) (running) · ` : '';
  return `${current}[this thread's runs](${all})`;
}

function oneParagraph(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > REQUEST_LIMIT ? `${flat.slice(0, REQUEST_LIMIT)}…` : flat;
}

function webBase(input: StaticDetailsInput): string {
  return (input.githubWebUrl ?? '').replace(/\/$/, '');
}
