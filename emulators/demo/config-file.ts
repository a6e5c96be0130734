import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { DEMO, fullRepoName } from './session';

/**
 * Writes the demo's `switchboard.yaml` into `dir` and returns its path: Temporal, the HTTP
 * port, the local GitHub and Slack as base URLs, the `demo` scripted directory as the default
 * model, `#dev`'s default repository, and the codec endpoint the Web UI decodes through. Paths are absolute; secrets stay out (environment).
 */
export function writeDemoConfig(
  dir: string,
  options: {
    root: string;
    temporal: { address: string; uiUrl?: string; namespace: string; taskQueue: string };
    httpPort: number;
    github: { apiUrl: string; gitUrl: string };
    slack: { apiUrl: string };
  },
): string {
  const file = join(dir, 'switchboard.yaml');
  mkdirSync(join(dir, 'data'), { recursive: true });
  const { temporal } = options;
  writeFileSync(
    file,
    stringify({
      dataDir: join(dir, 'data'),
      temporal: {
        address: temporal.address,
        namespace: temporal.namespace,
        taskQueue: temporal.taskQueue,
        ...(temporal.uiUrl ? { uiUrl: temporal.uiUrl } : {}),
      },
      http: { host: '127.0.0.1', port: options.httpPort },
      log: { level: 'info', format: 'json' },
      github: { apiUrl: options.github.apiUrl, gitUrl: options.github.gitUrl },
      slack: { apiUrl: options.slack.apiUrl },
      models: { scriptedDirs: { [DEMO.scriptedDir.name]: join(options.root, DEMO.scriptedDir.folder) } },
      agents: {
        defaults: { model: DEMO.model },
        channels: { [DEMO.channel.id]: { defaultRepo: fullRepoName } },
      },
      // The check_run webhook wakes the unit; the poll is only the fallback.
      ship: { checksPollSeconds: 10 },
      // The demo's Web UI decodes claim-checked payloads through /codec (no token: it is on loopback).
      codec: { enabled: true },
    }),
  );
  return file;
}
