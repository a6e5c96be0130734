import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { projectRoot } from '../../infra/paths';

/** The name tests give their own scripted directory: their models are `scripted:kit/<file>`. */
export const KIT_SCRIPTS = 'kit';

export interface TestScripts {
  /** The directory the scripts are written to. */
  dir: string;
  /** A config file naming it in `models.scriptedDirs`, beside the project's `examples` (a relative path in a config file resolves against the file's folder, so it is absolute here). */
  configFile: string;
  /** Writes `<name>.yaml` (turns, or the file's text) and returns its model id, `scripted:kit/<name>.yaml`. */
  write(name: string, script: unknown[] | string): string;
}

/**
 * A worker process's own scripted directory, `<dir>/scripts`, configured the way an operator
 * would: `<dir>/switchboard.yaml` (other sections merge in from `config`). A worker whose
 * working directory is `dir` reads that file by default; elsewhere pass SWITCHBOARD_CONFIG.
 */
export function testScripts(dir: string, config: Record<string, unknown> = {}): TestScripts {
  const scripts = join(dir, 'scripts');
  mkdirSync(scripts, { recursive: true });
  const configFile = join(dir, 'switchboard.yaml');
  writeFileSync(
    configFile,
    stringify({ ...config, models: { scriptedDirs: { examples: join(projectRoot(), 'examples'), [KIT_SCRIPTS]: scripts } } }),
  );
  return {
    dir: scripts,
    configFile,
    write(name, script) {
      writeFileSync(join(scripts, `${name}.yaml`), typeof script === 'string' ? script : stringify({ turns: script }));
      return `scripted:${KIT_SCRIPTS}/${name}.yaml`;
    },
  };
}
