import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDoctor } from './doctor';

async function doctor(env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await runDoctor({ env, cwd: mkdtempSync(join(tmpdir(), 'switchboard-doctor-')), write: (line) => lines.push(line) });
  return { code, output: lines.join('\n') };
}

describe('switchboard doctor', () => {
  const address = process.env.SWITCHBOARD_TEST_TEMPORAL_ADDRESS!;
  const base = { PATH: process.env.PATH, TEMPORAL_TEST_SERVER_PATH: process.env.TEMPORAL_TEST_SERVER_PATH };

  it('passes against a running server with our search attributes', async () => {
    const { code, output } = await doctor({ ...base, TEMPORAL_ADDRESS: address });
    expect(output).toMatch(/ok {4}temporal CLI: .*temporal version 1\.9\.1/);
    expect(output).toMatch(/ok {4}temporal server: /);
    expect(output).toMatch(/ok {4}search attributes: all registered/);
    expect(code).toBe(0);
  });

  it('fails with the fix when the CLI binary is missing', async () => {
    const { code, output } = await doctor({ ...base, TEMPORAL_ADDRESS: address, TEMPORAL_CLI_PATH: '/nonexistent/temporal' });
    expect(code).toBe(1);
    expect(output).toMatch(/FAIL {2}temporal CLI: TEMPORAL_CLI_PATH=\/nonexistent\/temporal is not an executable file/);
    expect(output).toMatch(/1 problem:\n {2}- .*npm install/);
  });

  it('fails when a configured server is unreachable, and names a bad config key', async () => {
    const unreachable = await doctor({ ...base, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.output).toMatch(/FAIL {2}temporal server: not reachable at 127\.0\.0\.1:1/);

    const badConfig = await doctor({ ...base, PORT: 'abc' });
    expect(badConfig.code).toBe(1);
    expect(badConfig.output).toMatch(/FAIL {2}config: [\s\S]*PORT \(http\.port\)/);
  });
});
