import { ProblemSchema } from '../server/api/schemas';
import { KIT_HELLO, startApiKit, type ApiKit } from './helpers/api-kit';

jest.setTimeout(90_000);

/**
 * Spend caps hold at every door: a job's thread refuses a start past a daily cap in the job's
 * own answer, and a unit the API starts itself (no thread) is refused at the door the same way.
 */
describe('HTTP API under a used-up daily spend cap', () => {
  let api: ApiKit;

  beforeAll(async () => {
    api = await startApiKit('api-spend', {
      tokens: { alice: { user: 'alice' }, bob: { user: 'bob' } },
      // Alice's cap for today is nothing: any start of hers is past it.
      spend: { people: { alice: { dailyUsd: 0 } }, channels: {}, repos: {}, agents: {} },
    });
  });
  afterAll(() => api?.close());

  it('refuses a unit for the person past the cap with 403 spend_cap, the amount and when it resets; another person is not held', async () => {
    const refused = await api.call('/units', { as: 'alice', body: { repo: 'acme/app', request: 'fix the total' } });
    expect(refused.status).toBe(403);
    const body = ProblemSchema.passthrough().parse(await refused.json());
    expect(body).toMatchObject({ code: 'access_refused', refusal: 'spend_cap', capUsd: 0, spentUsd: 0 });
    expect(body.detail).toMatch(/\$0\.00/);
    expect(String((body as { resetsAt?: string }).resetsAt)).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
    // Bob has no cap: his request goes past the spend check (and stops at what this kit lacks, GitHub).
    const bob = ProblemSchema.passthrough().parse(
      await (await api.call('/units', { as: 'bob', body: { repo: 'acme/app', request: 'fix it' } })).json(),
    );
    expect(bob.refusal).not.toBe('spend_cap');
  });

  it('answers a job of the person past the cap with the thread’s refusal, naming the cap', async () => {
    const response = await api.call('/jobs', { as: 'alice', body: { text: 'say hello', agent: 'research', model: KIT_HELLO } });
    const body = (await response.json()) as {
      outcome?: { kind: string; code?: string; reply?: string };
      status?: number;
      refusal?: string;
    };
    const refusal = body.outcome ?? body;
    expect(JSON.stringify(refusal)).toMatch(/spend_cap/);
  });
});
