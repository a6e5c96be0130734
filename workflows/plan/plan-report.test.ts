import type { PlanInput } from '../contracts';
import { CallLog } from '../test-support';
import { PlanProgress } from './plan-progress';
import { hash, PlanReports } from './plan-report';

const input: PlanInput = {
  planId: 'plan:acme/app:notes',
  repo: 'acme/app',
  replyTarget: { kind: 'slack', team: 'T1', channel: 'C1', threadTs: '100.000001' },
  requester: { id: 'U1', surface: 'slack' },
  units: [{ key: 'api', request: 'Add the API' }],
};

/** A plan's reports over a call log; `failing` names the activities that fail. */
function reports(card: boolean, failing: string[] = []) {
  const log = new CallLog();
  const answer = (name: string) => (call: { effectKey: string }) => {
    if (failing.includes(name)) throw new Error(`${name} failed`);
    return { status: 'confirmed' as const, effectKey: call.effectKey };
  };
  const progress = new PlanProgress(input, true);
  const plan = new PlanReports(
    input,
    progress,
    {
      status: { planCard: log.fn('planCard', answer('planCard')) },
      replies: { deliverReply: log.fn('deliverReply', answer('deliverReply')) },
    },
    card,
  );
  return { log, progress, plan };
}

describe("a plan's reports", () => {
  it('edit one card in place, sent again only when its picture changed', async () => {
    const { log, progress, plan } = reports(true);
    await plan.report();
    await plan.report();
    expect(log.names()).toEqual(['planCard']);
    progress.units[0].status = 'running';
    await plan.report();
    progress.stop({ by: 'U1' });
    await plan.report();
    const cards = log.inputs<{ effectKey: string; text: string }>('planCard');
    expect(cards.map((card) => card.effectKey)).toEqual(Array(3).fill('plan:acme/app:notes/card'));
    expect(cards.map((card) => card.text.split('\n')[0])).toEqual([
      'Plan `plan:acme/app:notes`: running (it merges its units in dependency order)',
      'Plan `plan:acme/app:notes`: running (it merges its units in dependency order)',
      'Plan `plan:acme/app:notes`: stopping (it merges its units in dependency order)',
    ]);
    expect(cards[1].text).toContain('`api` running');
  });

  it('without a card (plans recorded before it): a progress reply per picture, keyed by its text', async () => {
    const { log, plan } = reports(false);
    await plan.report();
    const text = 'Plan plan:acme/app:notes: api waiting.';
    expect(log.inputs('deliverReply')).toEqual([
      { effectKey: `plan:acme/app:notes/progress/${hash(text)}`, replyTarget: input.replyTarget, text },
    ]);
    expect(log.names()).toEqual(['deliverReply']);
  });

  it('settle with the final card (a card that fails is no reason not to settle) and the report', async () => {
    const { log, plan } = reports(true, ['planCard']);
    await plan.settled('stopped', 'Plan plan:acme/app:notes stopped. Merged in order: none.');
    expect(log.names()).toEqual(['planCard', 'deliverReply']);
    expect(log.inputs<{ text: string }>('planCard')[0].text).toMatch(/^Plan `plan:acme\/app:notes`: stopped/);
    expect(log.inputs('deliverReply')[0]).toMatchObject({
      effectKey: 'plan:acme/app:notes/report',
      text: expect.stringContaining('stopped'),
    });
    // The report is the plan's last word: its failure is the workflow's, as before.
    await expect(reports(false, ['deliverReply']).plan.settled('completed', 'done')).rejects.toThrow('deliverReply failed');
  });

  it('hash the same text the same way (FNV-1a), and different texts apart', () => {
    expect(hash('')).toBe('811c9dc5');
    expect(hash('a')).toBe('e40c292c');
    expect(hash('Plan p: a running.')).not.toBe(hash('Plan p: a ready.'));
  });
});
