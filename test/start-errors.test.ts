import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './helpers/ports';
import { logMessages, spawnSwitchboard } from './helpers/switchboard-process';
import { testTemporalAddress } from './helpers/temporal';

jest.setTimeout(60_000);

/**
 * Each common start-up mistake ends `npm start` with exit code 1 and one line that names
 * the address, port, binary or key and the fix; a stack only at LOG_LEVEL=debug.
 */
describe('start-up mistakes', () => {
  let dir: string;
  let holder: Server;
  let heldPort: number;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-start-errors-'));
    // A port held by a program that is not Switchboard nor Temporal.
    holder = createServer((socket) => {
      sockets.add(socket.once('close', () => sockets.delete(socket)));
      socket.end();
    });
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    heldPort = (holder.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => holder.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the entry point to its exit; returns the code, the lines it printed, and the raw output. */
  async function start(env: Record<string, string>) {
    const app = spawnSwitchboard({ env: { SWITCHBOARD_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'info', ...env } });
    const code = await app.exited;
    return { code, lines: logMessages(app.output()), output: app.output() };
  }

  /** Exactly one line says it, and nothing printed a stack. */
  function expectOneLine(result: { code: number | null; lines: string[]; output: string }, expected: RegExp) {
    expect(result.code).toBe(1);
    expect(result.lines.filter((line) => expected.test(line))).toHaveLength(1);
    expect(result.output).not.toMatch(/\n\s+at \S/);
    expect(result.output).not.toMatch(/"stack"/);
  }

  it('the HTTP port in use', async () => {
    const result = await start({ TEMPORAL_ADDRESS: testTemporalAddress(), PORT: String(heldPort) });
    expectOneLine(
      result,
      new RegExp(
        `^Switchboard could not start: HTTP port ${heldPort} on 127\\.0\\.0\\.1 is in use by another program .*: stop it, or set PORT \\(http\\.port\\)$`,
      ),
    );
  });

  it('an unreachable TEMPORAL_ADDRESS, named with the fix', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const result = await start({ TEMPORAL_ADDRESS: address, PORT: String(await freePort()) });
    expectOneLine(
      result,
      new RegExp(
        `^Switchboard could not start: Temporal is not reachable at ${address.replace(/\./g, '\\.')} \\(connection refused: nothing listens there\\): ` +
          'start Temporal there or correct TEMPORAL_ADDRESS \\(temporal\\.address\\); unset it to run the embedded server$',
      ),
    );
  });

  it('a malformed TEMPORAL_ADDRESS', async () => {
    const result = await start({ TEMPORAL_ADDRESS: 'http://127.0.0.1:7233' });
    expectOneLine(
      result,
      /^Invalid configuration: TEMPORAL_ADDRESS \(temporal\.address\): expected host:port \(e\.g\. 127\.0\.0\.1:7233, no scheme\), got "http:\/\/127\.0\.0\.1:7233"$/,
    );
  });

  it('a bad value in the config file, naming the file and the key', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'http:\n  port: eighty\n');
    const result = await start({ SWITCHBOARD_CONFIG: file });
    expectOneLine(result, new RegExp(`^Invalid configuration: ${file.replace(/\./g, '\\.')}: http\\.port: .*expected number`));
  });

  it('a missing Temporal binary', async () => {
    const result = await start({
      TEMPORAL_CLI_PATH: join(dir, 'no-such-temporal'),
      SWITCHBOARD_TEMPORAL_PORT: String(await freePort()),
      PORT: String(await freePort()),
    });
    expectOneLine(
      result,
      /^Switchboard could not start: TEMPORAL_CLI_PATH=.*no-such-temporal is not an executable file\. Run `npm install`/,
    );
  });

  it("the embedded Temporal's port in use", async () => {
    const result = await start({
      SWITCHBOARD_TEMPORAL_PORT: String(heldPort),
      SWITCHBOARD_TEMPORAL_UI_PORT: String(await freePort()),
      PORT: String(await freePort()),
    });
    expectOneLine(
      result,
      new RegExp(
        `^Switchboard could not start: The embedded Temporal cannot listen on 127\\.0\\.0\\.1:${heldPort}: another program uses that port\\. ` +
          'Stop it, or set SWITCHBOARD_TEMPORAL_PORT \\(temporal\\.embedded\\.port\\)$',
      ),
    );
  });

  it('LOG_LEVEL=debug adds the detail, stack included', async () => {
    const result = await start({ TEMPORAL_ADDRESS: testTemporalAddress(), PORT: String(heldPort), LOG_LEVEL: 'debug' });
    expect(result.code).toBe(1);
    expect(result.lines).toContain('start-up failure in detail');
    expect(result.output).toMatch(/"stack":"[^"]*EADDRINUSE/);
  });
});
