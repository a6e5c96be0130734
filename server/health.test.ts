import { checkHealth, type HealthSources } from './health';

const sources = (sandbox?: HealthSources['sandbox']): HealthSources => ({
  namespace: 'default',
  taskQueue: 'q',
  pingTemporal: async () => undefined,
  workerState: () => 'RUNNING',
  ...(sandbox ? { sandbox } : {}),
});

describe('the health report and the sandbox', () => {
  it('is healthy with bubblewrap, and says so', async () => {
    expect(await checkHealth(sources(async () => ({ mode: 'bwrap', ready: true })))).toMatchObject({
      ok: true,
      sandbox: { mode: 'bwrap', ready: true },
    });
  });

  it('reports unisolated mode while staying up, because an operator chose it', async () => {
    const report = await checkHealth(sources(async () => ({ mode: 'unisolated', ready: true, reason: 'off by configuration' })));
    expect(report).toMatchObject({ ok: true, sandbox: { mode: 'unisolated' } });
  });

  it('is unhealthy, with the fix, when shell commands cannot be isolated', async () => {
    const report = await checkHealth(
      sources(async () => ({
        mode: 'unavailable',
        ready: false,
        reason: 'bwrap is not installed',
        fix: 'apt-get install -y bubblewrap util-linux',
      })),
    );
    expect(report.ok).toBe(false);
    expect(report.reason).toBe('sandbox unavailable: bwrap is not installed; apt-get install -y bubblewrap util-linux');
  });
});
