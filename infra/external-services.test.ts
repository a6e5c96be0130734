import { waitUntil } from '../test/helpers/wait';
import { ExternalServices, type ServiceStatus } from './external-services';
import { createLogger } from './logger';

const logger = createLogger({ level: 'silent' });

/** A check that fails `failures` times with the given reason, then passes. */
function flaky(failures: number, reason = 'connection refused') {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    check: async () => {
      calls += 1;
      if (calls <= failures) throw new Error(`${reason}\nsecond line is dropped`);
    },
  };
}

describe('ExternalServices', () => {
  let services: ExternalServices | undefined;
  afterEach(() => services?.stop());
  const statusOf = (name: string) => async () => services!.statuses().find((s) => s.name === name) as ServiceStatus;

  it('reports a failing service as degraded with the reason, retries it, and marks it up once it answers', async () => {
    services = new ExternalServices({ logger, retry: { initialMs: 20, maxMs: 50 } });
    let answering = false;
    services.supervise({
      name: 'slack',
      check: async () => {
        if (!answering) throw new Error('connection refused\nsecond line is dropped');
      },
    });
    services.supervise({ name: 'github', check: async () => undefined });

    const degraded = await waitUntil(statusOf('slack'), (s) => s.state === 'degraded' && s.failures >= 2);
    expect(degraded).toMatchObject({ reason: 'connection refused', retryAt: expect.any(String) });

    answering = true;
    const up = await waitUntil(statusOf('slack'), (s) => s.state === 'up');
    expect(up).toMatchObject({ failures: 0, upSince: expect.any(String) });
    expect(up.reason).toBeUndefined();
    expect(services.statuses().map((s) => [s.name, s.state])).toEqual([
      ['slack', 'up'],
      ['github', 'up'],
    ]);
  });

  it('uses the reason the service describes', async () => {
    services = new ExternalServices({ logger, retry: { initialMs: 60_000 } });
    services.supervise({ name: 'slack', check: flaky(1).check, describe: () => 'Slack refused SLACK_BOT_TOKEN (invalid_auth)' });
    expect(await waitUntil(statusOf('slack'), (s) => s.state === 'degraded')).toMatchObject({
      reason: 'Slack refused SLACK_BOT_TOKEN (invalid_auth)',
    });
  });

  it('waits longer after a failure, up to the cap', async () => {
    services = new ExternalServices({ logger, retry: { initialMs: 60_000, maxMs: 600_000 } });
    services.supervise({ name: 'slow', check: flaky(1).check });
    const slow = await waitUntil(statusOf('slow'), (s) => s.state === 'degraded');
    // The first retry is the initial wait less at most 20 % jitter away.
    expect(Date.parse(slow.retryAt!) - Date.now()).toBeGreaterThan(40_000);

    const capped = new ExternalServices({ logger, retry: { initialMs: 60_000, maxMs: 50 } });
    try {
      const counter = flaky(2);
      capped.supervise({ name: 'capped', check: counter.check });
      // Capped at 50 ms (plus jitter), so both retries happen promptly and it comes up.
      await waitUntil(
        async () => capped.statuses()[0],
        (s) => s.state === 'up',
        10_000,
        20,
      );
      expect(counter.calls).toBe(3);
    } finally {
      capped.stop();
    }
  });

  it('stops retrying once stopped', async () => {
    services = new ExternalServices({ logger, retry: { initialMs: 10, maxMs: 10 } });
    const never = flaky(Number.POSITIVE_INFINITY);
    services.supervise({ name: 'gone', check: never.check });
    await waitUntil(statusOf('gone'), (s) => s.failures >= 2);
    services.stop();
    const callsAtStop = never.calls;
    // A retry already due may still be in flight once; after that nothing runs.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(never.calls).toBeLessThanOrEqual(callsAtStop + 1);
  });
});
