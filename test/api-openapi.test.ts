import { randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import { type Router } from 'express';
import { createGitHubIdentities } from '../activities/github';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { createLogger } from '../infra/logger';
import { apiMountsFromConfig } from '../server/api/from-config';
import { KIT_HELLO, readEvents, startApiKit, type ApiKit } from './helpers/api-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(90_000);

type Operation = {
  operationId: string;
  parameters?: Array<{ in: string; name: string }>;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

/**
 * The OpenAPI document against the routes: every Express route is documented, every
 * documented operation answers (with a status it documents, and a body its schema accepts,
 * checked by a JSON Schema 2020-12 validator on the document itself), and every $ref resolves.
 */
describe('OpenAPI document /api/v1/openapi.json', () => {
  let api: ApiKit;
  let github: LocalGitHub;
  let document: Document;
  const repo = `api-${randomUUID().slice(0, 8)}/app`;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

  beforeAll(async () => {
    github = await startLocalGitHub({ tokens: { read: ['read-token'], write: ['write-token'] } });
    const [owner, name] = repo.split('/');
    github.createRepo(owner, name, { 'README.md': '# app\n' });
    api = await startApiKit('api-openapi', {
      github: createGitHubIdentities({
        apiUrl: github.apiUrl,
        gitUrl: github.gitUrl,
        tokens: { read: 'read-token', write: 'write-token' },
      }),
      tokens: { alice: { user: 'alice' } },
    });
    const response = await fetch(`${api.origin}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as Document;
    ajv.addSchema(document, 'openapi.json');
  });
  afterAll(async () => {
    await api?.close();
    await github?.close();
  });

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );

  it('is OpenAPI 3.1 whose every $ref resolves, with bearer auth', () => {
    expect(document.openapi).toBe('3.1.0');
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of new Set(refs)) {
      const name = /#\/components\/schemas\/([^"]+)/.exec(ref)?.[1];
      expect(name && document.components.schemas[name]).toBeTruthy();
    }
    expect(JSON.stringify(document)).toContain('"securitySchemes":{"bearer":{"type":"http","scheme":"bearer"');
  });

  it('documents exactly the routes Express serves', () => {
    const [mount] = apiMountsFromConfig(api.loaded, api.kit.env.client, createLogger({ level: 'silent' }), undefined, api.secrets);
    const served = ((mount.handler as Router).stack as Array<{ route?: { path: string; methods: Record<string, boolean> } }>)
      .filter((layer) => layer.route)
      .flatMap((layer) => Object.keys(layer.route!.methods).map((method) => `${method} ${layer.route!.path.replace(/:(\w+)/g, '{$1}')}`));
    const documented = operations().map(({ path, method }) => `${method} ${path}`);
    // Each path also answers any other method with 405 (a catch-all route per path, not an operation).
    const methodNotAllowed = served.filter((entry) => entry.startsWith('_all ')).map((entry) => entry.slice('_all '.length));
    expect([...served.filter((entry) => !entry.startsWith('_all '))].sort()).toEqual([...documented].sort());
    const paths = new Set(operations().map(({ path }) => path));
    paths.delete('/openapi.json');
    expect(methodNotAllowed.sort()).toEqual([...paths].sort());
  });

  it('every documented operation answers with a documented status and a body its schema accepts', async () => {
    const hello = KIT_HELLO;
    const slow = api.kit.script('unit-slow', [{ text: 'Thinking.', delayMs: 600_000 }]);
    const ids: Record<string, string> = {};
    /** Each operation as a client calls it, in an order where earlier answers supply later ids. */
    const plan: Array<{ op: string; params?: () => Record<string, string>; body?: unknown; query?: string; expect: number }> = [
      { op: 'openApiDocument', expect: 200 },
      { op: 'listAgents', expect: 200 },
      { op: 'startJob', body: { text: 'say hello', model: hello }, expect: 202 },
      { op: 'jobEvents', params: () => ({ jobId: ids.jobId }), expect: 200 },
      { op: 'getJob', params: () => ({ jobId: ids.jobId }), expect: 200 },
      { op: 'listJobs', query: '?limit=5', expect: 200 },
      { op: 'steerJob', params: () => ({ jobId: ids.jobId }), body: { text: 'more' }, expect: 409 },
      { op: 'stopJob', params: () => ({ jobId: ids.jobId }), body: {}, expect: 409 },
      { op: 'getThread', params: () => ({ threadId: ids.threadId }), expect: 200 },
      { op: 'postMessage', params: () => ({ threadId: ids.threadId }), body: { text: 'again', model: hello }, expect: 202 },
      { op: 'startUnit', body: { repo, request: 'Add a changelog', model: slow }, expect: 202 },
      { op: 'getUnit', params: () => ({ unitId: ids.unitId }), expect: 200 },
      { op: 'steerUnit', params: () => ({ unitId: ids.unitId }), body: { text: 'mention the date' }, expect: 200 },
      { op: 'listUnits', query: `?repo=${repo}`, expect: 200 },
      { op: 'stopUnit', params: () => ({ unitId: ids.unitId }), body: { reason: 'test over' }, expect: 202 },
      {
        op: 'startPlan',
        body: {
          name: 'openapi',
          repo,
          model: slow,
          units: [
            { key: 'one', request: 'Add one' },
            { key: 'two', request: 'Add two', dependsOn: ['one'] },
          ],
        },
        expect: 202,
      },
      { op: 'getPlan', params: () => ({ planId: ids.planId }), expect: 200 },
      { op: 'listPlans', query: `?repo=${repo}`, expect: 200 },
      { op: 'stopPlan', params: () => ({ planId: ids.planId }), body: { reason: 'test over' }, expect: 202 },
    ];
    const byId = new Map(operations().map((entry) => [entry.operation.operationId, entry]));
    expect([...plan.map((step) => step.op)].sort()).toEqual([...byId.keys()].sort());

    for (const step of plan) {
      const { path, method, operation } = byId.get(step.op)!;
      const params = step.params?.() ?? {};
      const url = path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(params[name])) + (step.query ?? '');
      const response = await api.call(url, {
        as: 'alice',
        method: method.toUpperCase(),
        ...(step.body !== undefined ? { body: step.body } : {}),
      });
      const status = String(response.status);
      expect({ op: step.op, status: response.status }).toEqual({ op: step.op, status: step.expect });
      expect(Object.keys(operation.responses)).toContain(status);
      const contentType = (response.headers.get('content-type') ?? '').split(';')[0];
      const documented = operation.responses[status].content?.[contentType];
      expect({ op: step.op, contentType, documented: Boolean(documented) }).toEqual({ op: step.op, contentType, documented: true });
      const body: unknown = contentType === 'text/event-stream' ? await readEvents(response) : await response.json();
      if (contentType !== 'text/event-stream') {
        const pointer = ['paths', path, method, 'responses', status, 'content', contentType, 'schema'].map((part) =>
          part.replace(/~/g, '~0').replace(/\//g, '~1'),
        );
        const validate = ajv.getSchema(`openapi.json#/${pointer.join('/')}`)!;
        expect({ op: step.op, valid: validate(body), errors: validate.errors ?? null }).toEqual({ op: step.op, valid: true, errors: null });
      }
      if (step.op === 'startJob') {
        const accepted = body as { jobId: string; threadId: string };
        [ids.jobId, ids.threadId] = [accepted.jobId, accepted.threadId];
      }
      if (step.op === 'startUnit') ids.unitId = (body as { unitId: string }).unitId;
      if (step.op === 'startPlan') ids.planId = (body as { planId: string }).planId;
      if (step.op === 'listUnits') {
        // Visibility trails the unit by a moment; the answer's shape is what is checked above.
        await waitUntil(
          async () => (await (await api.call(url, { as: 'alice' })).json()) as { units: Array<{ unitId: string }> },
          (listed) => listed.units.some((unit) => unit.unitId === ids.unitId),
        );
      }
    }
    const settled = await waitUntil(
      async () =>
        (await (await api.call(`/units/${encodeURIComponent(ids.unitId)}`, { as: 'alice' })).json()) as {
          state: string;
          record?: { outcome: string };
        },
      (unit) => unit.state === 'completed',
    );
    expect(settled.record).toMatchObject({ outcome: 'stopped' });
    expect(ids.unitId).toBe(`unit:${repo}:add-a-changelog`);
    const endedPlan = await waitUntil(
      async () =>
        (await (await api.call(`/plans/${encodeURIComponent(ids.planId)}`, { as: 'alice' })).json()) as {
          state: string;
          record?: { outcome: string };
        },
      (found) => found.state === 'completed',
    );
    expect(endedPlan.record).toMatchObject({ outcome: 'stopped' });
  });
});
