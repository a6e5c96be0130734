import { ProblemSchema } from '../server/api/schemas';
import { KIT_HELLO, startApiKit, type ApiKit } from './helpers/api-kit';

jest.setTimeout(90_000);

/**
 * A worker that cannot isolate commands (here: a probe that reports no bubblewrap) refuses
 * every agent that reaches a shell, and the API says it is the deployment's state (503), not
 * the caller's mistake; an agent without a shell still runs.
 */
describe('HTTP API on a worker without command isolation', () => {
  let api: ApiKit;

  beforeAll(async () => {
    api = await startApiKit('api-no-sandbox', {
      tokens: { alice: { user: 'alice' } },
      sandboxProbe: async () => ({ mode: 'none', setpriv: true, reason: 'bwrap is not installed' }),
    });
  });
  afterAll(() => api?.close());

  it('answers a shell agent with 503 sandbox_unavailable naming the reason and the fix', async () => {
    const response = await api.call('/jobs', { as: 'alice', body: { text: 'list the files', agent: 'explore', model: KIT_HELLO } });
    expect(response.status).toBe(503);
    const body = ProblemSchema.parse(await response.json());
    expect(body).toMatchObject({ code: 'sandbox_unavailable', refusal: 'sandbox_unavailable' });
    expect(body.detail).toMatch(/cannot isolate shell commands right now \(bwrap is not installed\), so nothing was run/);
    expect(body.detail).toMatch(/apt-get install -y bubblewrap util-linux/);
  });

  it('still runs an agent that needs no shell', async () => {
    const response = await api.call('/jobs', { as: 'alice', body: { text: 'say hello', agent: 'research', model: KIT_HELLO } });
    expect(response.status).toBe(202);
  });
});
