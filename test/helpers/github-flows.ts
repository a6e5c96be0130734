import { randomUUID } from 'node:crypto';
import { type Client } from '@temporalio/client';
import { startLocalGitHub, type LocalGitHub } from '../../emulators/local-github';
import { startLocalCi, type LocalCi } from '../../emulators/local-github/ci';
import type { IssueState } from '../../emulators/local-github/state';
import { startDeployment, WEBHOOK_SECRET, type Deployment } from './deployment';
import { freePort } from './ports';
import { sharedEnvironment } from './temporal';
import { waitUntil } from './wait';

/**
 * The stage of issue 25's end-to-end tests: the real product (`node dist/infra/main.js`) with a
 * local GitHub that delivers its webhooks to it, a CI that reports a check run, and one repository
 * holding a small invoice module, AGENTS.md files, a lockfile and a `.switchboard.yml` with one
 * broken key (`colour`). Ana and Bob are its collaborators with write access.
 */

/** src/total.js with its third line (the body of the function) as given. */
export const TOTAL = (line3: string) => `// Totals are kept in cents.\nmodule.exports = function total(cents, percent) {\n${line3}\n};\n`;
export const ROUNDED = '  return Math.round(cents * (1 - percent / 100));';
export const CLAMPED = '  return Math.round(cents * (1 - Math.min(Math.max(percent, 0), 100) / 100));';

export const SETTINGS = `# Switchboard's settings for this repository
review:
  triggers: [opened, review_requested, push]
  debounceSeconds: 2
  severity: minor
issues:
  label: switchboard
setup:
  commands:
    - echo "installing the dependencies"
    - echo ran >> "$HOME/setup-runs.txt"
  lockfiles: [package-lock.json]
  timeoutSeconds: 60
colour: red
`;

/** A finding as submit_review takes it. */
export const finding = (title: string, path: string, line: number, extra: Record<string, unknown> = {}) => ({
  severity: 'minor',
  path,
  line,
  title,
  scenario: 'total(1000, 150) returns -500.',
  impact: 'An invoice for a negative amount.',
  ...extra,
});

/** GitHub's JSON, read field by field in the assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export interface Flows {
  client: Client;
  github: LocalGitHub;
  product: Deployment;
  repo: string;
  /** A person's REST call to the local GitHub, on the repository (`path` after `/repos/<owner>/<name>`). */
  as: (token: string, method: string, path: string, body?: unknown) => Promise<Json>;
  /** An issue or pull request as the local GitHub holds it. */
  item: (number: number) => IssueState;
  /** The bot's comments on an issue or pull request. */
  ours: (number: number) => IssueState['comments'];
  /** The running unit started from a thread, once visibility shows it. */
  runningUnitOf: (threadId: string) => Promise<string>;
  threadOf: (number: number) => string;
  close: () => Promise<void>;
}

export const [ANA, BOB, READ, WRITE] = ['gh-ana-flows', 'gh-bob-flows', 'gh-read-flows', 'gh-write-flows'];

/** `config`: more sections of the deployment's switchboard.yaml; `settings`: more lines of the repository's `.switchboard.yml`. */
export async function startFlows(
  label: string,
  script: unknown[],
  options: { config?: Record<string, unknown>; settings?: string } = {},
): Promise<Flows> {
  const client = (await sharedEnvironment()).client;
  const repo = `${label}-${randomUUID().slice(0, 6)}/invoices`;
  const port = await freePort();
  const github = await startLocalGitHub({
    tokens: { read: [READ], write: [WRITE, ANA, BOB] },
    logins: { [ANA]: 'ana', [BOB]: 'bob' },
    webhookUrl: `http://127.0.0.1:${port}/webhooks/github`,
    webhookSecret: WEBHOOK_SECRET,
  });
  const [owner, name] = repo.split('/');
  github.createRepo(
    owner,
    name,
    {
      'README.md': '# invoices\n',
      'package-lock.json': '{"lockfileVersion": 3}\n',
      'src/total.js': TOTAL('  return cents - percent;'),
      'AGENTS.md': 'Run node --test before you commit.\n',
      'src/AGENTS.md': 'Money is kept in cents in this folder: never return fractions.\n',
      '.switchboard.yml': SETTINGS + (options.settings ?? ''),
    },
    { collaborators: { ana: 'write', bob: 'write' } },
  );
  let ci: LocalCi | undefined;
  let product: Deployment | undefined;
  const close = async () => {
    if (product)
      for await (const execution of client.workflow.list({
        query: `TaskQueue = "${product.taskQueue}" AND ExecutionStatus = "Running"`,
      }))
        await client.workflow
          .getHandle(execution.workflowId)
          .terminate('test over')
          .catch(() => undefined);
    await product?.close();
    await ci?.close();
    await github.close();
  };
  try {
    ci = startLocalCi(github, { command: 'true' });
    product = await startDeployment(label, {
      github,
      githubTokens: { read: READ, write: WRITE },
      port,
      config: { agents: { defaults: { model: `scripted:kit/${label}.yaml` } }, ship: { checksPollSeconds: 10 }, ...options.config },
      apiTokens: {},
    });
    product.script(label, script);
  } catch (error) {
    await close();
    throw error;
  }
  const item = (number: number): IssueState => github.state.repo(owner, name)!.issues.get(number)!;
  return {
    client,
    github,
    product,
    repo,
    as: async (token, method, path, body) => {
      const response = await fetch(`${github.apiUrl}/repos/${repo}${path}`, {
        method,
        headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Json;
    },
    item,
    ours: (number) => item(number).comments.filter((comment) => comment.user === 'switchboard[bot]'),
    runningUnitOf: (threadId) =>
      waitUntil(
        async () => {
          for await (const execution of client.workflow.list({
            query: `SwitchboardKind = "unit" AND Thread = "${threadId}" AND ExecutionStatus = "Running"`,
          }))
            return execution.workflowId;
          return undefined;
        },
        (id) => id !== undefined,
        60_000,
      ) as Promise<string>,
    threadOf: (number) => `thread:gh:${repo}#${number}`,
    close,
  };
}
