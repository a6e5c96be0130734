import { type Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../infra/dev-server';
import { createLogger } from '../infra/logger';
import { pingTemporal } from '../infra/temporal';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { createServerApp } from '../server/app';
import { freePort } from './helpers/ports';

jest.setTimeout(120_000);

describe('GET /healthz', () => {
  let temporal: DevServer | undefined;
  let http: Server | undefined;
  let connection: Connection | undefined;

  afterAll(async () => {
    http?.close();
    await connection?.close().catch(() => undefined);
    await temporal?.stop();
  });

  it('answers 200 while Temporal is up and 503 with the reason once it is down', async () => {
    temporal = await startDevServer({ binary: resolveTemporalBinary('cli').path, port: await freePort(), ui: false });
    connection = await Connection.connect({ address: temporal.address });
    const app = createServerApp({
      client: new Client({ connection }),
      logger: createLogger({ level: 'silent' }),
      health: {
        namespace: 'default',
        taskQueue: 'health-test',
        pingTemporal: () => pingTemporal(connection!, 'default', 1_000),
        workerState: () => 'RUNNING',
      },
    });
    const port = await freePort();
    http = app.listen(port, '127.0.0.1');
    const url = `http://127.0.0.1:${port}/healthz`;

    const up = await fetch(url);
    expect(up.status).toBe(200);
    expect(await up.json()).toMatchObject({ ok: true, temporal: 'ok', worker: 'running' });

    await temporal.stop();
    const down = await fetch(url);
    expect(down.status).toBe(503);
    const body = (await down.json()) as { temporal: string; reason: string };
    expect(body.temporal).toBe('down');
    expect(body.reason).toMatch(/Temporal unreachable/);
  });
});
