import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { defaultAgentsConfig } from '../../agents/config';
import { TokenTable } from '../../infra/api-tokens';
import { createLogger } from '../../infra/logger';
import { dataConverterFromConfig } from '../../infra/payloads';
import { SessionLinks } from '../../infra/session-links';
import { createDoor } from '../../server/api/door';
import { sessionAdmissionFrom } from '../../server/session/admission';
import { createDoorAdmission } from '../../infra/door-admission';
import { AdmissionConfigSchema } from '../../infra/config/admission-section';
import { createGitHubIdentities } from '../../activities/github';
import { SessionHub } from '../../server/session/hub';
import { createRedactor } from '../../server/session/render/redact';
import { createSessionRouter } from '../../server/session/router';
import { launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/ports';
import { startRunKit, type RunKit } from '../helpers/run-kit';
import { KIT_SCRIPTS } from '../helpers/scripts';
import { percentile } from './stats';

/**
 * `npm run bench` (or this file alone): the session page of a long run. A real run of TURNS
 * model turns (default 300), each with a real sandboxed command whose output the page shows, on
 * a worker with the claim-check codec; then the page served by the real router from Temporal's
 * history: its size, the server's time to serve it (cold: the watcher reads and decodes the whole
 * history; warm: the watcher is there), and headless Chromium's first contentful paint.
 * Targets (issue 26): under ~300 KB, first screen in under a second.
 */
jest.setTimeout(30 * 60_000);

const TURNS = Number(process.env.BENCH_SESSION_TURNS ?? 300);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 10);

describe('bench: the session page of a long run', () => {
  let kit: RunKit;
  let server: Server;
  let hub: SessionHub;
  const payloads = mkdtempSync(join(tmpdir(), 'bench-session-payloads-'));

  beforeAll(async () => {
    const dataConverter = dataConverterFromConfig({ dataDir: payloads, payloads: { claimCheckBytes: 8 * 1024, dir: payloads } });
    kit = await startRunKit('bench-session', { dataConverter });
  });
  afterAll(async () => {
    hub?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await kit?.close();
    rmSync(payloads, { recursive: true, force: true });
  });

  it(`${TURNS}-turn run: page size, time to serve, first paint`, async () => {
    const turn = () => ({
      text: 'Turn {{turn}}: checking the next part of the module. The **parser** still reads `config.yaml` first, then the rest.',
      toolCalls: [
        { name: 'bash', input: { command: 'for i in $(seq 1 30); do echo "line $i of the listing: src/module-$i.ts ok"; done' } },
      ],
    });
    // As JSON, one object per turn (YAML would alias repeated turns, which its reader caps).
    const turns = [...Array.from({ length: TURNS }, turn), { text: `Done after ${TURNS} turns.` }];
    writeFileSync(join(kit.dir, 'scripts', 'long.json'), JSON.stringify({ turns }));
    const model = `scripted:${KIT_SCRIPTS}/long.json`;
    const started = Date.now();
    const { runId } = await kit.start('walk through the whole module', { agent: 'coding', model });
    const record = await kit.result(runId);
    const runSeconds = (Date.now() - started) / 1000;
    if (record.turns !== TURNS + 1)
      throw new Error(`the run ended ${record.outcome} after ${record.turns} turns: ${record.endedBy ?? record.finalText}`);

    const links = new SessionLinks('b'.repeat(64), 3_600_000, '');
    const redact = createRedactor({});
    hub = new SessionHub({ client: kit.client, logger: createLogger({ level: 'silent' }), context: () => ({ redact, now: Date.now() }) });
    const admission = createDoorAdmission({
      agents: { config: defaultAgentsConfig({}), admission: AdmissionConfigSchema.parse({}) },
      identities: createGitHubIdentities({ apiUrl: 'http://127.0.0.1:9/api/v3', gitUrl: 'http://127.0.0.1:9' }),
      cacheSeconds: 0,
    });
    const app = express();
    app.use(
      '/session',
      createSessionRouter({
        hub,
        links,
        tokens: new TokenTable([]),
        admission: sessionAdmissionFrom(() => admission.facts()),
        door: createDoor({
          client: kit.client,
          taskQueue: kit.taskQueue,
          namespace: 'default',
          facts: () => admission.facts(),
          decisionWaitMs: 1_000,
        }),
        logger: createLogger({ level: 'silent' }),
      }),
    );
    const port = await freePort();
    server = await new Promise((resolve) => {
      const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
    });
    const url = `http://127.0.0.1:${port}${links.url(runId)}`;

    const timed = async () => {
      const t0 = performance.now();
      const response = await fetch(url, { headers: { 'accept-encoding': 'gzip' } });
      const body = await response.text();
      expect(response.status).toBe(200);
      return { ms: performance.now() - t0, bytes: Buffer.byteLength(body), sent: Number(response.headers.get('content-length')) };
    };
    type Timing = { fcp: number; dcl: number; response: number };
    const browser = await launchChromium({ width: 1100, height: 900 });
    const navigate = async (): Promise<Timing> => {
      const page = await browser.context.newPage();
      await page.goto(url, { waitUntil: 'load' });
      // The paint entry is recorded once the first frame is out, a moment after load.
      const read = () =>
        page.evaluate<Timing>(
          `(() => { const nav = performance.getEntriesByType('navigation')[0];
                    return { fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
                             dcl: nav?.domContentLoadedEventEnd ?? -1, response: nav?.responseEnd ?? -1 }; })()`,
        );
      let timing = await read();
      for (let wait = 0; timing.fcp < 0 && wait < 50; wait += 1) {
        await page.waitForTimeout(100);
        timing = await read();
      }
      await page.close();
      return timing;
    };
    let cold: Timing;
    const paints: number[] = [];
    const warm: number[] = [];
    let size: Awaited<ReturnType<typeof timed>>;
    try {
      // The browser's own start is not the page's: a first navigation (a refused page) warms it.
      const warmUp = await browser.context.newPage();
      await warmUp.goto(`http://127.0.0.1:${port}/session/nothing`);
      await warmUp.close();
      // Cold: no watcher yet, so the server reads and decodes the whole history, then renders.
      cold = await navigate();
      size = await timed();
      for (let k = 0; k < SAMPLES; k += 1) warm.push((await timed()).ms);
      for (let k = 0; k < Math.min(SAMPLES, 5); k += 1) paints.push((await navigate()).fcp);
    } finally {
      await browser.close();
    }
    const description = await kit.client.workflow.getHandle(runId).describe();
    const rows = [
      [
        'page size',
        `${(size.bytes / 1024).toFixed(0)} KB (${Math.round(size.bytes / (TURNS + 1))} bytes a turn)`,
        '< ~300 KB',
        size.bytes < 300 * 1024,
      ],
      ['sent (gzip)', `${(size.sent / 1024).toFixed(0)} KB`, '', undefined],
      ['cold page (the server reads, decodes, renders): response end', `${cold.response.toFixed(0)} ms`, '', undefined],
      ['cold page: first contentful paint in Chromium', `${cold.fcp.toFixed(0)} ms`, '< 1 s', cold.fcp < 1_000],
      [`warm page: served (median of ${SAMPLES})`, `${percentile(warm, 50).toFixed(0)} ms`, '', undefined],
      ['warm page: first contentful paint (median)', `${percentile(paints, 50).toFixed(0)} ms`, '< 1 s', percentile(paints, 50) < 1_000],
    ] as const;
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}`;
    process.stdout.write(
      [
        '',
        '| session page of a long run | measured | target | met |',
        '| --- | --- | --- | --- |',
        ...rows.map(([what, value, target, met]) => `| ${what} | ${value} | ${target} | ${met === undefined ? '' : met ? 'yes' : 'no'} |`),
        '',
        `${TURNS + 1} turns, ${record.toolCalls.length} commands, history of ${description.historyLength} events in the last of its executions; the run took ${runSeconds.toFixed(0)} s.`,
        `machine: ${machine}`,
        '',
      ].join('\n'),
    );
  });
});
