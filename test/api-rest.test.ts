import { JobAcceptedSchema, JobSchema, ProblemSchema } from '../server/api/schemas';
import { KIT_HELLO, readEvents, startApiKit, type ApiKit } from './helpers/api-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(90_000);

const HELLO = KIT_HELLO;

/**
 * The REST API end to end on the real server: a worker with the product bundle and a
 * scripted model, the Express app with `/api/v1` mounted from a real switchboard.yaml.
 */
describe('HTTP API /api/v1', () => {
  let api: ApiKit;
  let slow: string;

  beforeAll(async () => {
    api = await startApiKit('api-rest', {
      agents: { restrict: { agents: { review: ['alice'] } } },
      api: { maxBodyBytes: 4096, rateLimit: { requestsPerMinute: 600, burst: 100 } },
      tokens: {
        alice: { user: 'alice' },
        bob: { user: 'bob', agents: ['general'] },
        carol: { user: 'carol', selfServe: true },
        trickle: { user: 'dave', requestsPerMinute: 1 },
      },
    });
    slow = api.kit.script('slow', [{ text: 'Thinking for a long time.', delayMs: 600_000 }]);
  });
  afterAll(() => api?.close());

  const problem = async (response: Response) => {
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = ProblemSchema.parse(await response.json());
    expect(body.type).toBe(`urn:switchboard:problem:${body.code}`);
    expect(body.status).toBe(response.status);
    expect(JSON.stringify(body)).not.toMatch(/\n\s+at /);
    return body;
  };

  it('starts a job, streams its status and its report, and reads the durable record', async () => {
    const started = await api.call('/jobs', { as: 'alice', body: { text: 'say hello', model: HELLO } });
    expect(started.status).toBe(202);
    const accepted = JobAcceptedSchema.parse(await started.json());
    expect(accepted).toMatchObject({ kind: 'run', agent: 'general' });
    expect(accepted.threadId).toMatch(/^thread:api:[0-9a-f-]{36}$/);
    expect(accepted.jobId).toBe(`run:${accepted.threadId}:1`);
    expect(accepted.links.events).toBe(`/api/v1/jobs/${encodeURIComponent(accepted.jobId!)}/events`);
    expect(accepted.links.webUi).toMatch(/^http:\/\/127\.0\.0\.1:8233\/namespaces\/default\/workflows\//);

    const stream = await fetch(`${api.origin}${accepted.links.events}`, { headers: { authorization: `Bearer ${api.tokens.alice}` } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(stream);
    const report = events[events.length - 1];
    expect(report.event).toBe('report');
    const job = JobSchema.parse(report.data);
    expect(job).toMatchObject({ jobId: accepted.jobId, state: 'completed', outcome: 'completed', agent: 'general' });
    expect(job.record?.finalText).toBe('Hello from Switchboard. You asked: say hello');
    expect(job.report).toMatch(/^outcome: completed\nagent: general .*model scripted:kit\/hello\.yaml \(directive\)/);
    // Every event before the report is a status; a run that finished before the stream opened has none.
    expect(events.slice(0, -1).every((event) => event.event === 'status')).toBe(true);

    const read = await api.call(`/jobs/${encodeURIComponent(accepted.jobId!)}`, { as: 'alice' });
    expect(read.status).toBe(200);
    const again = JobSchema.parse(await read.json());
    expect(again.record?.finalText).toBe(job.record?.finalText);
    // The durable report claims no delivery anywhere.
    expect(JSON.stringify(await (await api.call(`/jobs/${encodeURIComponent(accepted.jobId!)}`, { as: 'alice' })).json())).not.toMatch(
      /confirmed|delivered/,
    );

    const listed = await waitUntil(
      async () => (await (await api.call('/jobs', { as: 'alice' })).json()) as { jobs: Array<{ jobId: string }> },
      (body) => body.jobs.some((entry) => entry.jobId === accepted.jobId),
    );
    expect(listed.jobs[0]).toMatchObject({ state: expect.any(String) });

    // A follow-up in the same thread is the thread's second run and sees the first exchange.
    const followUp = await api.call(`/threads/${encodeURIComponent(accepted.threadId)}/messages`, {
      as: 'alice',
      body: { text: 'and again', model: HELLO },
    });
    expect(followUp.status).toBe(202);
    expect(await followUp.json()).toMatchObject({ kind: 'run', jobId: `run:${accepted.threadId}:2` });
    const thread = await api.call(`/threads/${encodeURIComponent(accepted.threadId)}`, { as: 'alice' });
    expect(await thread.json()).toMatchObject({ threadId: accepted.threadId, runCount: 2 });
    expect(await api.call(`/threads/${encodeURIComponent(accepted.threadId)}`, { as: 'bob' }).then((r) => r.status)).toBe(403);
  });

  it('steers a running job, stops it (the stream ends with the stopped record), and refuses both once it has finished', async () => {
    const started = await api.call('/jobs', { as: 'alice', body: { text: 'take your time', model: slow } });
    const { jobId, threadId } = JobAcceptedSchema.parse(await started.json());
    const path = `/jobs/${encodeURIComponent(jobId!)}`;
    const stream = fetch(`${api.origin}/api/v1${path}/events`, { headers: { authorization: `Bearer ${api.tokens.alice}` } }).then(
      readEvents,
    );
    await waitUntil(
      async () => JobSchema.parse(await (await api.call(path, { as: 'alice' })).json()),
      (job) => job.status?.phase === 'thinking',
    );

    const steered = await api.call(`${path}/steer`, { as: 'alice', body: { text: 'use the v2 API' } });
    expect(steered.status).toBe(200);
    expect(await steered.json()).toEqual({ accepted: true, pending: 1 });
    const emptySteer = await api.call(`${path}/steer`, { as: 'alice', body: { text: '   ' } });
    expect((await problem(emptySteer)).errors).toEqual([{ field: 'text', message: expect.any(String) }]);

    // A follow-up waits its turn behind the running job: with Prefer: wait=0 the answer is `queued` at once.
    const threadPath = `/threads/${encodeURIComponent(threadId)}`;
    const queued = await api.call(`${threadPath}/messages`, {
      as: 'alice',
      body: { text: 'after that, say hello', model: HELLO },
      headers: { prefer: 'wait=0' },
    });
    expect(queued.status).toBe(202);
    const follow = JobAcceptedSchema.parse(await queued.json());
    expect(follow).toMatchObject({ kind: 'queued', threadId });

    const stopped = await api.call(`${path}/stop`, { as: 'alice', body: { reason: 'enough' } });
    expect(stopped.status).toBe(202);
    const events = await stream;
    expect(events.some((event) => event.event === 'status')).toBe(true);
    const final = JobSchema.parse(events[events.length - 1].data);
    expect(final).toMatchObject({ state: 'completed', outcome: 'stopped', record: { endedBy: 'stopped by alice: enough' } });

    const late = await api.call(`${path}/steer`, { as: 'alice', body: { text: 'too late' } });
    expect(late.status).toBe(409);
    expect(await problem(late)).toMatchObject({ code: 'steer_rejected', detail: 'The run has finished (stopped).' });
    const stopAgain = await api.call(`${path}/stop`, { as: 'alice', method: 'POST' });
    expect(stopAgain.status).toBe(409);
    expect(await problem(stopAgain)).toMatchObject({ code: 'job_finished' });

    // Once the stopped job settled, the queued follow-up became the thread's next job.
    const thread = await waitUntil(
      async () =>
        (await (await api.call(threadPath, { as: 'alice' })).json()) as {
          outcomes: Array<{ messageId: string; kind: string; runId?: string }>;
        },
      (state) => state.outcomes.some((outcome) => outcome.messageId === follow.messageId),
    );
    expect(thread.outcomes.find((outcome) => outcome.messageId === follow.messageId)).toMatchObject({
      kind: 'run',
      runId: `run:${threadId}:2`,
    });
  });

  it('a retried POST with the same Idempotency-Key starts nothing twice; another body under it is 409', async () => {
    const body = { text: 'say hello once', model: HELLO };
    const headers = { 'idempotency-key': 'retry-me-1' };
    const first = JobAcceptedSchema.parse(await (await api.call('/jobs', { as: 'alice', body, headers })).json());
    const second = await api.call('/jobs', { as: 'alice', body, headers });
    expect(second.status).toBe(202);
    expect(JobAcceptedSchema.parse(await second.json())).toEqual(first);
    const thread = (await (await api.call(`/threads/${encodeURIComponent(first.threadId)}`, { as: 'alice' })).json()) as {
      runCount: number;
      outcomes: unknown[];
    };
    expect(thread.runCount).toBe(1);
    expect(thread.outcomes).toHaveLength(1);

    const conflict = await api.call('/jobs', { as: 'alice', body: { ...body, text: 'something else' }, headers });
    expect(conflict.status).toBe(409);
    expect(await problem(conflict)).toMatchObject({ code: 'idempotency_conflict' });
    // The key is per token: bob's same key is his own request.
    const bobs = await api.call('/jobs', { as: 'bob', body, headers });
    expect(JobAcceptedSchema.parse(await bobs.json()).threadId).not.toBe(first.threadId);
  });

  it('a repository run GitHub cannot confirm (this kit holds no GitHub credential) is 503 github_unavailable, refusal repo_unverified', async () => {
    const response = await api.call('/jobs', {
      as: 'alice',
      body: { text: 'list the files', agent: 'explore', repo: 'acme/app', model: HELLO },
    });
    expect(response.status).toBe(503);
    const body = await problem(response);
    expect(body).toMatchObject({ code: 'github_unavailable', refusal: 'repo_unverified' });
    expect(body.detail).toBe(
      "GitHub could not be asked about acme/app: no credential is configured for the 'read' identity, so nothing was run (repo_unverified). Ask again in a moment; if it keeps happening, an operator can check Switchboard's GitHub connection.",
    );
  });

  it('answers every client mistake with a problem document: 400, 401, 403, 404, 405, 413, 415, 422, 429', async () => {
    const unknownField = await api.call('/jobs', { as: 'alice', body: { text: 'hi', colour: 'red' } });
    expect(unknownField.status).toBe(400);
    expect(await problem(unknownField)).toMatchObject({ code: 'bad_request', errors: [{ field: 'colour', message: 'unknown field' }] });
    const missing = await problem(await api.call('/jobs', { as: 'alice', body: {} }));
    expect(missing.errors).toEqual([{ field: 'text', message: expect.any(String) }]);
    const budget = await problem(await api.call('/jobs', { as: 'alice', body: { text: 'hi', budgetMinutes: 2 } }));
    expect(budget.errors).toEqual([{ field: 'budgetMinutes', message: expect.stringMatching(/>=\s*5/) }]);
    const malformed = await api.call('/jobs', { as: 'alice', body: '{"text": ' });
    expect(malformed.status).toBe(400);
    expect((await problem(malformed)).detail).toBe('The body is not valid JSON.');
    const badThread = await problem(await api.call('/threads/thread:slack:T:C:1/messages', { as: 'alice', body: { text: 'hi' } }));
    expect(badThread).toMatchObject({ status: 400, errors: [{ field: 'threadId', message: expect.any(String) }] });

    const anonymous = await api.call('/agents');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await problem(anonymous)).code).toBe('unauthorized');
    expect((await api.call('/agents', { headers: { authorization: 'Bearer sbt_not-a-token' } })).status).toBe(401);

    const granted = await api.call('/jobs', { as: 'bob', body: { text: 'look around', agent: 'explore' } });
    expect(granted.status).toBe(403);
    expect(await problem(granted)).toMatchObject({
      code: 'access_refused',
      refusal: 'token_grant',
      detail: expect.stringMatching(/api\.tokens\.bob\.agents/),
    });
    const restricted = await problem(await api.call('/jobs', { as: 'bob', body: { text: 'review it', agent: 'review' } }));
    expect(restricted).toMatchObject({ status: 403, refusal: 'agent_restricted' });
    const selfServe = await problem(await api.call('/jobs', { as: 'carol', body: { text: 'look around', agent: 'explore' } }));
    expect(selfServe).toMatchObject({ status: 403, refusal: 'self_serve_shell', detail: expect.stringMatching(/holds a shell/) });
    const agents = (await (await api.call('/agents', { as: 'carol' })).json()) as { agents: Array<{ id: string; shell: boolean }> };
    expect(agents.agents.map((agent) => agent.id)).toEqual(['general', 'research', 'conductor']);
    expect(await (await api.call('/agents', { as: 'bob' })).json()).toEqual({
      agents: [expect.objectContaining({ id: 'general', shell: false })],
    });

    const aliceJob = JobAcceptedSchema.parse(
      await (await api.call('/jobs', { as: 'alice', body: { text: 'say hello', model: HELLO } })).json(),
    );
    const notYours = await problem(await api.call(`/jobs/${encodeURIComponent(aliceJob.jobId!)}`, { as: 'carol' }));
    expect(notYours).toMatchObject({ status: 403, refusal: 'not_requester' });
    const notFound = await api.call('/jobs/run:thread:api:00000000-0000-0000-0000-000000000000:1', { as: 'alice' });
    expect(notFound.status).toBe(404);
    expect(await problem(notFound)).toMatchObject({ code: 'not_found' });
    expect((await api.call('/jobs/unit:acme%2Fapp%237', { as: 'alice' })).status).toBe(404);
    expect((await problem(await api.call('/nowhere', { as: 'alice' }))).code).toBe('not_found');
    // A path the API has, with a method it does not take there: 405 and the methods it does.
    const deleted = await api.call('/jobs', { as: 'alice', method: 'DELETE' });
    expect(deleted.status).toBe(405);
    expect(deleted.headers.get('allow')).toBe('POST, GET, HEAD');
    expect(await problem(deleted)).toMatchObject({ code: 'method_not_allowed', detail: '/jobs takes POST, GET, HEAD, not DELETE.' });

    const big = await api.call('/jobs', { as: 'alice', body: { text: 'x'.repeat(5000) } });
    expect(big.status).toBe(413);
    expect((await problem(big)).code).toBe('payload_too_large');
    const text = await api.call('/jobs', { as: 'alice', body: 'say hello', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);

    const noRequest = await api.call('/jobs', { as: 'alice', body: { text: 'agent:general' } });
    expect(noRequest.status).toBe(422);
    expect(await problem(noRequest)).toMatchObject({ code: 'request_refused', refusal: 'request_missing' });
    const unknownAgent = await problem(await api.call('/jobs', { as: 'alice', body: { text: 'hi', agent: 'nope' } }));
    expect(unknownAgent).toMatchObject({ status: 422, refusal: 'agent_unknown' });
    const model = await problem(await api.call('/jobs', { as: 'alice', body: { text: 'hi', model: 'scripted:examples/hello.yaml' } }));
    expect(model).toMatchObject({ status: 403, refusal: 'model_not_allowed', detail: expect.stringMatching(/models\.allowed/) });
    const noRepo = await problem(
      await api.call('/jobs', { as: 'alice', body: { text: 'fix the flaky test in the parser', agent: 'ship' } }),
    );
    expect(noRepo).toMatchObject({ status: 422, refusal: 'repo_missing' });

    expect((await api.call('/agents', { as: 'trickle' })).status).toBe(200);
    const limited = await api.call('/agents', { as: 'trickle' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await problem(limited)).code).toBe('rate_limited');
  });
});
