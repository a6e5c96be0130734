import type { UnitOutcome } from '../contracts';
import type { Unit } from './unit';

const MINUTE = 60_000;

/**
 * Waits for CI on the head: the `checks` signal, with a timer-driven poll as the fallback.
 * Green goes to idle, red becomes work for a coding round, and CI still pending at the
 * timeout goes to idle with the reason.
 */
export class ChecksRound {
  constructor(private readonly unit: Unit) {}

  async run(): Promise<UnitOutcome | undefined> {
    const { unit } = this;
    const { carry: c, settings, activities, inbox, ports, repo } = unit;
    const { ship } = settings;
    const headSha = c.headSha!;
    c.checks ??= { state: 'waiting', headSha, polls: 0 };
    const started = ports.now();
    const deadline = started + ship.checksTimeoutMinutes * MINUTE;
    for (let first = true; ; first = false) {
      // The first look is immediate (CI may be done already); later ones wait for a signal or the poll timer.
      const wait = first ? 0 : Math.min(ship.checksPollSeconds * 1_000, Math.max(0, deadline - ports.now()));
      if (wait > 0) {
        unit.nextTimer = { purpose: 'checks poll', at: new Date(ports.now() + wait).toISOString() };
        await ports.condition(() => inbox.checksArrivedFor(headSha) || inbox.interrupting(), wait);
        unit.nextTimer = undefined;
      }
      if (inbox.interrupting()) return undefined;
      inbox.clearChecks();
      const checks = await activities.github.githubCommitChecks({ repo, ref: headSha, identity: 'read' });
      c.checks.polls += 1;
      // Right after a push CI may not have registered yet: "no checks" counts as green only after a poll interval.
      const noneReported = checks.checkRuns.length === 0 && checks.statuses.length === 0;
      const settledEmpty = noneReported && (ports.now() - started >= ship.checksPollSeconds * 1_000 || ports.now() >= deadline);
      if (checks.overall === 'success' && (!noneReported || settledEmpty)) {
        c.checks.state = 'success';
        unit.enter('idle');
        return undefined;
      }
      if (checks.overall === 'failure') {
        const failed = [
          ...checks.checkRuns
            .filter((run) => run.conclusion && run.conclusion !== 'success' && run.conclusion !== 'skipped' && run.conclusion !== 'neutral')
            .map((run) => `${run.name}: ${run.conclusion}`),
          ...checks.statuses.filter((s) => s.state === 'failure' || s.state === 'error').map((s) => `${s.context}: ${s.state}`),
        ];
        c.checks.state = 'failure';
        c.checks.detail = failed.join('; ');
        c.work.push({ kind: 'checks', detail: `Failing on ${headSha.slice(0, 12)}: ${c.checks.detail}` });
        unit.enter('coding');
        return undefined;
      }
      if (ports.now() >= deadline) {
        c.checks.state = 'timed_out';
        c.checks.detail = `CI still pending after ${ship.checksTimeoutMinutes} minutes`;
        unit.enter('idle');
        return undefined;
      }
    }
  }
}
