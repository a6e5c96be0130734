import { devServerArgs } from './dev-server';

describe('devServerArgs', () => {
  const base = { binary: 'temporal', port: 7233 };

  it('serves the Web UI on its port when one is given, with no codec by default', () => {
    const args = devServerArgs({ ...base, uiPort: 8233 });
    expect(args).toEqual(expect.arrayContaining(['--ui-port', '8233']));
    expect(args).not.toContain('--headless');
    expect(args).not.toContain('--ui-codec-endpoint');
  });

  it('points the Web UI at the codec endpoint when there is one', () => {
    const args = devServerArgs({ ...base, uiPort: 8233, uiCodecEndpoint: 'http://127.0.0.1:3000/codec' });
    expect(args.join(' ')).toContain('--ui-codec-endpoint http://127.0.0.1:3000/codec');
    expect(args).not.toContain('--headless');
  });

  it('is headless without a UI, and never passes a codec endpoint then', () => {
    const args = devServerArgs({ ...base, ui: false, uiCodecEndpoint: 'http://127.0.0.1:3000/codec' });
    expect(args).toContain('--headless');
    expect(args).not.toContain('--ui-port');
    expect(args).not.toContain('--ui-codec-endpoint');
  });

  it('gives every dev server eager activity dispatch and one task-queue partition', () => {
    const args = devServerArgs(base).join(' ');
    expect(args).toContain('--dynamic-config-value system.enableActivityEagerExecution=true');
    expect(args).toContain('--dynamic-config-value system.enableEagerWorkflowStart=true');
    expect(args).toContain('--dynamic-config-value matching.numTaskqueueReadPartitions=1');
    expect(args).toContain('--dynamic-config-value matching.numTaskqueueWritePartitions=1');
  });
});
