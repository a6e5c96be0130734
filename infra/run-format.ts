import { describeBudget } from '../agents/profile';
import type { RunRecord, RunStatus } from '../workflows/contracts';

/** One status line, as the CLI streams it while a run works. */
export function formatStatusLine(status: RunStatus): string {
  const seconds = Math.round(status.elapsedMs / 1000);
  const parts = [`[${status.phase}]`, `turn ${status.turns}/${status.turnGuard}`, `${seconds}s`];
  if (status.lastTool) parts.push(`last tool ${status.lastTool}`);
  if (status.statusText) parts.push(`— ${status.statusText}`);
  return parts.join(' ');
}

/** The run record in words: outcome, bounds, counts, then the answer. */
export function formatRecord(record: RunRecord): string {
  const { profile } = record;
  const failedCalls = record.toolCalls.filter((call) => !call.ok).length;
  const lines = [
    `outcome: ${record.outcome}${record.endedBy ? ` (${record.endedBy})` : ''}`,
    `agent: ${profile.agent} · model ${profile.model.value} (${profile.model.chosenBy}) · budget ${describeBudget(profile.budget)}`,
    `turns: ${record.turns} · tokens in ${record.tokens.input} / out ${record.tokens.output} · tool calls ${record.toolCalls.length}${failedCalls ? ` (${failedCalls} failed)` : ''} · children ${record.children.length}`,
  ];
  if (record.jobWaits.polls > 0) lines.push(`job waits: ${record.jobWaits.polls} polls, ${Math.round(record.jobWaits.waitedMs / 1000)}s`);
  lines.push('', record.finalText || '(no answer text)');
  return lines.join('\n');
}
