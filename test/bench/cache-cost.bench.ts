import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { startAnthropicServer, type RecordedRequest, type WireServer } from '../emulators/anthropic-server';
import { startOpenAIServer } from '../emulators/openai-server';
import { startRunKit, type RunKit } from '../helpers/run-kit';
import { startShipKit, type ShipKit } from '../helpers/ship-kit';
import { sharedEnvironment } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { BenchModel, type BenchStep } from './bench-model';
import { AnthropicCache, OpenAICache, totals, type RunAccount } from './cache-accounting';

/**
 * `npm run bench:cost` (and part of `npm run bench`): what the prompt cache serves, measured
 * from the request bodies the providers receive. A local Messages API and a local Chat
 * Completions server record every body and answer from the request (bench-model.ts); the runs
 * are real runs on the real worker and sandbox; cache-accounting.ts applies the providers'
 * caching rules to the bodies. BENCH_COST_ROWS (comma-separated ids) picks rows.
 */
jest.setTimeout(60 * 60_000);

const ANTHROPIC_MODEL = 'anthropic:claude-sonnet-4-6';
const OPENAI_MODEL = 'openai:gpt-4.1';
const ROWS = process.env.BENCH_COST_ROWS?.split(',').map((row) => row.trim());
/** A directory to write each row's request bodies to (`<row>.jsonl`), to look at what was sent. */
const DUMP = process.env.BENCH_COST_DUMP;
const wanted = (id: string) => !ROWS || ROWS.includes(id);

/** Output sizes in characters, cycled through: half the outputs of a mixed run are over 2,000 (older results over it are cut), every one of a large run. */
const MIXED = [180, 2_600, 700, 9_000, 60, 1_500, 4_200, 350, 12_000, 900];
const LARGE = [2_300, 3_400, 5_200, 2_700, 8_500, 3_900, 14_000, 2_500, 6_300, 3_100];
/** Every output just over the 2,000 characters at which an older result is cut. */
const OVER_2K = [2_100, 2_600, 3_500, 2_300, 3_000, 2_800];

/** A command whose output is about `chars` characters of numbered lines (42 characters a line). */
function output(step: number, chars: number): string {
  return `awk 'BEGIN{for(i=1;i<=${Math.max(1, Math.round(chars / 42))};i++) printf "step %03d line %05d lorem ipsum dolor sit\\n", ${step % 1000}, i}'`;
}

/** An explore run's steps: a line of narration and one command a turn; every seventh turn three at once. */
export function exploreSteps(turns: number, sizes: number[]): BenchStep[] {
  let k = 0;
  const size = () => sizes[k++ % sizes.length];
  return Array.from({ length: turns - 1 }, (_, index) => {
    const step = index + 1;
    const count = step % 7 === 0 ? 3 : 1;
    return {
      text: `Step ${step}: checking the next claim (build, tests, timings) and recording the exact command and what it printed.`,
      calls: Array.from({ length: count }, (_, c) => ({ name: 'bash', input: { command: output(step * 10 + c, size()) } })),
    };
  });
}

const CLAIM_TABLE = `Verdict: most claims hold.\n\`\`\`\n${Array.from({ length: 20 }, (_, k) => `claim ${k + 1} | step ${k * 2 + 1} | 42 lines | holds`).join('\n')}\n\`\`\``;

/** A unit's coding run: look around, read, edit, test (large test output), fix, test again, describe. */
function codingSteps(): BenchStep[] {
  const bash = (command: string) => ({ name: 'bash', input: { command } });
  const read = (path: string) => ({ name: 'read_file', input: { path } });
  const write = (path: string, lines: number) => ({
    name: 'write_file',
    input: {
      path,
      content: Array.from({ length: lines }, (_, k) => `// line ${k + 1} of ${path}: const value${k} = compute(${k});`).join('\n'),
    },
  });
  const steps: BenchStep[] = [
    { text: 'Looking at the repository.', calls: [bash('git status && git log --oneline | head -20 && ls -la')] },
    { text: 'Reading the code and the readme.', calls: [read('README.md'), read('src/sum.js'), bash(output(1, 1_200))] },
    { text: 'Running the tests as they are.', calls: [bash(output(2, 6_500))] },
  ];
  for (let round = 0; round < 6; round += 1) {
    steps.push(
      {
        text: `Round ${round + 1}: writing the change.`,
        calls: [write(`src/part${round}.js`, 40), write(`test/part${round}.test.js`, 30)],
      },
      { text: 'Checking what the edit did.', calls: [bash(`git diff --stat && ${output(10 + round, 900)}`)] },
      { text: 'Running the tests.', calls: [bash(output(20 + round, round % 2 === 0 ? 7_500 : 3_200))] },
      { text: 'Reading the failure closely.', calls: [bash(output(30 + round, 1_800)), read(`src/part${round}.js`)] },
    );
  }
  steps.push(
    { text: 'Committing.', calls: [bash('git add -A && git commit -qm "Add the parts" && git log --oneline | head -3')] },
    {
      text: 'Describing the change.',
      calls: [{ name: 'submit_description', input: { title: 'Add the parts', body: 'Adds six parts with tests.' } }],
    },
  );
  return steps;
}

interface Measured {
  id: string;
  what: string;
  provider: 'anthropic' | 'openai';
  account: RunAccount;
  turns: number;
  outcome: string;
  compactions: number;
}

function accountOf(requests: RecordedRequest[], provider: 'anthropic' | 'openai', id: string): RunAccount {
  if (DUMP) writeFileSync(join(DUMP, `${id}.jsonl`), requests.map((request) => JSON.stringify(request.body)).join('\n'));
  const cache = provider === 'anthropic' ? new AnthropicCache() : new OpenAICache();
  return totals(
    requests.map((request) => cache.account(request.body, request.receivedAt)),
    undefined,
    provider,
  );
}

const pct = (value: number) => `${(value * 100).toFixed(1)} %`;
const millions = (tokens: number) => `${(tokens / 1_000_000).toFixed(2)} M`;

function table(rows: Measured[]): string {
  const lines = [
    '| run | provider | requests (turns) | input tokens | servable from cache as sent | written 5m / 1h | cost vs no caching | target | met |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of rows) {
    const { account } = row;
    // The issue's target applies to Anthropic's rules (OpenAI reads at 0.5× or more: 0.3× is out of reach by price alone).
    const large = row.id.includes('large') && row.provider === 'anthropic';
    const target = large ? '≥ 90 %, ≤ 0.30×' : '';
    const met = large ? (account.cacheShare >= 0.9 && account.costVsNoCache <= 0.3 ? 'yes' : 'no') : '';
    lines.push(
      `| ${row.what} | ${row.provider} | ${account.requests} (${row.turns}${row.compactions ? `, ${row.compactions} compactions` : ''}) | ${millions(account.input)} | ${pct(account.cacheShare)} | ${millions(account.write5m)} / ${millions(account.write1h)} | ${account.costVsNoCache.toFixed(2)}× | ${target} | ${met} |`,
    );
  }
  return lines.join('\n');
}

describe('prompt cache cost', () => {
  const measured: Measured[] = [];
  const model = new BenchModel((request) => {
    // A ship unit's review run (after the coding run the bench measures): approve at once.
    const tools: { name?: string; function?: { name: string } }[] = request.body?.tools ?? [];
    const names = tools.map((tool) => tool.name ?? tool.function?.name);
    const answered = (request.body?.messages ?? []).some((message: { role: string }) => message.role === 'assistant');
    if (names.includes('submit_review') && !answered)
      return { text: 'Approving.', calls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }] };
    return 'Done.';
  });
  let anthropic: WireServer;
  let openai: WireServer;
  let kit: RunKit;
  let ship: ShipKit | undefined;
  const models = () => ({
    anthropicBaseUrl: anthropic.url,
    openaiBaseUrl: `${openai.url}/v1`,
    env: { ANTHROPIC_API_KEY: 'bench', OPENAI_API_KEY: 'bench' },
  });

  beforeAll(async () => {
    anthropic = await startAnthropicServer(model.anthropic);
    openai = await startOpenAIServer(model.openai);
    kit = await startRunKit('bench-cost', { env: await sharedEnvironment(), models: models() });
  });

  afterAll(async () => {
    await ship?.close();
    await kit?.close();
    await anthropic?.close();
    await openai?.close();
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}`;
    process.stdout.write(`\n${table(measured)}\n\nmachine: ${machine}\n`);
  });

  async function exploreRow(id: string, what: string, turns: number, sizes: number[], provider: 'anthropic' | 'openai') {
    const server = provider === 'anthropic' ? anthropic : openai;
    const marker = `bench ${id}:`;
    model.play(marker, exploreSteps(turns, sizes), CLAIM_TABLE);
    const { runId } = await kit.start(`${marker} check every claim in the performance notes`, {
      agent: 'explore',
      model: provider === 'anthropic' ? ANTHROPIC_MODEL : OPENAI_MODEL,
    });
    const record = await kit.result(runId);
    const requests = server.requests.filter((request) => model.mine.has(request));
    model.mine.clear();
    measured.push({
      id,
      what,
      provider,
      account: accountOf(requests, provider, id),
      turns: record.turns,
      outcome: record.outcome,
      compactions: record.compactions ?? 0,
    });
    expect(record.outcome).toBe('completed');
  }

  const explore: [string, string, number, number[], 'anthropic' | 'openai'][] = [
    ['explore-40-mixed', 'explore, 40 turns, mixed output sizes', 40, MIXED, 'anthropic'],
    ['explore-120-mixed', 'explore, 120 turns, mixed', 120, MIXED, 'anthropic'],
    ['explore-40-large', 'explore, 40 turns, every output 2,300–14,000 characters', 40, LARGE, 'anthropic'],
    ['explore-120-large', 'explore, 120 turns, every output 2,300–14,000 characters', 120, LARGE, 'anthropic'],
    ['explore-40-large-over2k', 'explore, 40 turns, every output 2,100–3,500 characters', 40, OVER_2K, 'anthropic'],
    ['explore-120-large-over2k', 'explore, 120 turns, every output 2,100–3,500 characters', 120, OVER_2K, 'anthropic'],
    ['openai-explore-40-large', 'explore, 40 turns, every output 2,300–14,000 characters', 40, LARGE, 'openai'],
  ];
  for (const [id, what, turns, sizes, provider] of explore) {
    (wanted(id) ? it : it.skip)(what, () => exploreRow(id, what, turns, sizes, provider));
  }

  (wanted('ship-coding') ? it : it.skip)("a ship unit's coding run", async () => {
    ship = await startShipKit('bench-cost-ship', { env: kit.env, models: models() });
    const steps = codingSteps();
    model.play('Repository acme/app', steps, 'The parts are in, the tests pass, and the description is submitted.');
    const handle = await ship.start({
      unitId: 'unit:acme/app:bench-parts',
      request: 'Add the six parts with their tests.',
      model: ANTHROPIC_MODEL,
    });
    const runId = 'unit:acme/app:bench-parts/coding-1-1';
    await waitUntil(
      () => ship!.kit.client.workflow.getHandle(runId).describe(),
      (described) => described.status.name !== 'RUNNING',
      20 * 60_000,
      1_000,
    );
    const record = await ship.kit.client.workflow.getHandle(runId).result();
    await handle.terminate('bench: only the coding run is measured');
    const requests = anthropic.requests.filter((request) => model.mine.has(request));
    model.mine.clear();
    measured.push({
      id: 'ship-coding',
      what: "ship unit's coding run",
      provider: 'anthropic',
      account: accountOf(requests, 'anthropic', 'ship-coding'),
      turns: record.turns,
      outcome: record.outcome,
      compactions: record.compactions ?? 0,
    });
    expect(record.outcome).toBe('completed');
  });
});
