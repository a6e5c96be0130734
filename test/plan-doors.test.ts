import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client } from '@temporalio/client';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { type LocalMessage } from '../emulators/local-slack';
import { planStateQuery, type PlanRecord, type RunRecord, type UnitRecord } from '../workflows/contracts';
import { Requester, Thread } from '../workflows/search-attributes';
import { launchChromium } from './helpers/browser';
import { SLACK_BOT, startDeployment, type Deployment } from './helpers/deployment';
import { sharedEnvironment } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(900_000);

const ANA = 'U0ANA';
const CHANNEL = 'C0PLANS';
const [READ, WRITE] = ['plans-read', 'plans-write'];

/**
 * Plans from every door, end to end on the product (`node dist/infra/main.js` with a local Slack,
 * a local GitHub and the suite's Temporal): a plan asked for in Slack and one started over the
 * HTTP API each give every unit a conversation of its own, a steer in one unit's conversation
 * reaches that unit only, the plan's conversation gets its card and its report, and the plan still
 * merges in dependency order.
 */
describe('plans from every door', () => {
  let client: Client;
  let github: LocalGitHub;
  let product: Deployment;
  let model: string;
  const owner = `plans-${randomUUID().slice(0, 6)}`;

  beforeAll(async () => {
    client = (await sharedEnvironment()).client;
    github = await startLocalGitHub({ tokens: { read: [READ], write: [WRITE] } });
    for (const name of ['chat', 'api']) github.createRepo(owner, name, { 'README.md': `# ${name}\n` });
    product = await startDeployment('plan-doors', {
      github,
      githubTokens: { read: READ, write: WRITE },
      config: { ship: { checksPollSeconds: 10 }, plan: { mergeAuthority: true } },
      apiTokens: { ana: { user: 'ana' } },
    });
    // One script for every run: reviews approve; the first unit's first round is slow (a steer lands meanwhile).
    model = product.script('plan-model', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Fine.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          {
            when: { lastUserIncludes: 'second line' },
            text: 'Adding the second line.',
            toolCalls: [{ name: 'bash', input: { command: 'echo "second line" >> first.txt' } }],
          },
          {
            when: { lastUserIncludes: 'first.txt' },
            text: 'Writing first.txt.',
            delayMs: 5_000,
            toolCalls: [{ name: 'bash', input: { command: 'echo first > first.txt' } }],
          },
          {
            text: 'Writing second.txt.',
            toolCalls: [{ name: 'bash', input: { command: 'test -f first.txt && echo second > second.txt' } }],
          },
        ],
      },
      { text: 'Done: {{lastToolResult}}' },
    ]);
  });
  afterAll(async () => {
    await product?.close();
    await github?.close();
  });

  const units = (repo: string) => [
    { key: 'first', request: `Write first.txt in ${repo}.` },
    { key: 'second', request: `Write second.txt next to first.txt.`, dependsOn: ['first'] },
  ];
  const record = <T>(workflowId: string) => client.workflow.getHandle(workflowId).result() as Promise<T>;
  /** A unit's runs' records, once visibility lists `count` of them (it trails a moment behind). */
  const runsOf = async (unitId: string, count: number): Promise<RunRecord[]> => {
    const ids = await waitUntil(
      async () => {
        const listed: string[] = [];
        for await (const run of client.workflow.list({ query: `WorkflowId STARTS_WITH "${unitId}/"` })) listed.push(run.workflowId);
        return listed;
      },
      (listed) => listed.length >= count,
    );
    return Promise.all(ids.map((id) => record<RunRecord>(id)));
  };
  /** The first unit is in its slow first coding turn: a steer sent now joins its next round. */
  const firstIsCoding = (planId: string) =>
    waitUntil(
      () => client.workflow.getHandle(planId).query(planStateQuery),
      (state) => state.units[0].phase === 'coding',
      180_000,
    );
  const mergedInOrder = async (repo: string, plan: PlanRecord) => {
    expect(plan).toMatchObject({ outcome: 'completed', merged: ['first', 'second'] });
    const merges = github.state.writes
      .filter((write) => write.kind === 'pull_request.merge' && write.repo === repo)
      .map((write) => write.number);
    expect(merges).toEqual(plan.units.map((unit) => unit.pullRequest));
  };
  /** The steer reached the first unit alone: its second round worked on it; the second unit's runs never saw it. */
  const steeredOnlyTheFirst = async (plan: PlanRecord) => {
    const [first, second] = plan.units;
    expect(await record<UnitRecord>(first.unitId)).toMatchObject({ outcome: 'merged', rounds: 2 });
    expect(await record<UnitRecord>(second.unitId)).toMatchObject({ outcome: 'merged', rounds: 1 });
    // The first unit: its first round, the steered round, one review; the second: one round, one review.
    const firstRuns = await runsOf(first.unitId, 3);
    expect(firstRuns.find((run) => /\/coding-2-\d+$/.test(run.runId))?.request).toContain('second line');
    for (const run of await runsOf(second.unitId, 2)) expect(run.request).not.toContain('second line');
  };

  it('a plan asked for in Slack: each unit has a thread of its own where it reports, a reply there steers that unit only, the plan merges in order', async () => {
    const repo = `${owner}/chat`;
    const yaml = ['```', 'name: notes', `model: ${model}`, 'units:', ...units(repo).flatMap(yamlUnit), '```'].join('\n');
    const said = await product.slack.userSays({ channel: CHANNEL, user: ANA, text: `<@${SLACK_BOT}> plan in ${repo}\n${yaml}` });
    const threadTs = said.message.ts;
    const planId = `plan:${repo}:notes`;
    const answered = await waitUntil(
      async () => product.slack.state.thread(CHANNEL, threadTs).find((message) => message.text.startsWith('Started plan')),
      (found) => found !== undefined,
      60_000,
    );
    expect(answered!.text).toContain(`Started plan ${planId}: 2 units (first, second). Each unit reports in a thread of its own`);

    // The first unit's own thread: a top-level message of the channel, after the plan's.
    const roots = () =>
      product.slack.state.messages(CHANNEL).filter((message) => message.metadata?.event_type === 'switchboard_unit_thread');
    await firstIsCoding(planId);
    const firstRoot = roots().find((message) => message.metadata?.event_payload.unit_id === `unit:${repo}:notes-first`)!;
    expect(firstRoot.thread_ts).toBeUndefined();
    expect(Number(firstRoot.ts)).toBeGreaterThan(Number(threadTs));
    // Someone else's reply in the unit's thread never reaches it (the admission: only its requester steers it).
    const bob = await product.slack.userSays({
      channel: CHANNEL,
      user: 'U0BOB',
      threadTs: firstRoot.ts,
      text: 'Delete first.txt instead.',
    });
    const steer = await product.slack.userSays({
      channel: CHANNEL,
      user: ANA,
      threadTs: firstRoot.ts,
      text: 'Also write a second line to first.txt.',
    });
    // The unit took it: the reply gets 👀.
    await waitUntil(
      async () => product.slack.state.find(CHANNEL, steer.message.ts)?.reactions ?? [],
      (reactions) => reactions.some((reaction) => reaction.name === 'eyes'),
    );

    const plan = await record<PlanRecord>(planId);
    await mergedInOrder(repo, plan);
    await steeredOnlyTheFirst(plan);
    expect(product.slack.state.find(CHANNEL, bob.message.ts)?.reactions ?? []).toEqual([]);
    for (const run of await runsOf(plan.units[0].unitId, 3)) expect(run.request).not.toContain('Delete first.txt');

    // Every unit reported in its own thread (its runs' cards, its ready notice), none in the plan's or the other's.
    const secondRoot = roots().find((message) => message.metadata?.event_payload.unit_id === `unit:${repo}:notes-second`)!;
    const cardsIn = (ts: string) =>
      product.slack.state
        .thread(CHANNEL, ts)
        .filter((message) => message.metadata?.event_type === 'switchboard_card')
        .map((message) => String(message.metadata?.event_payload.run_id));
    expect(cardsIn(firstRoot.ts).sort()).toEqual([
      `unit:${repo}:notes-first/coding-1-1`,
      `unit:${repo}:notes-first/coding-2-1`,
      `unit:${repo}:notes-first/review-2-1`,
    ]);
    expect(cardsIn(secondRoot.ts).sort()).toEqual([`unit:${repo}:notes-second/coding-1-1`, `unit:${repo}:notes-second/review-1-1`]);
    expect(cardsIn(threadTs)).toEqual([]);
    const texts = (ts: string) => product.slack.state.thread(CHANNEL, ts).map((message: LocalMessage) => message.text);
    expect(texts(firstRoot.ts).some((text) => /^PR #\d+ on .* is ready/.test(text))).toBe(true);
    // The plan's conversation: its card (edited in place as it went) and its report.
    const card = product.slack.state.thread(CHANNEL, threadTs).find((message) => message.metadata?.event_type === 'switchboard_plan_card')!;
    expect(card.updates).toBeGreaterThan(0);
    expect(card.text).toContain(`Plan \`${planId}\`: completed`);
    expect(card.text).toMatch(/• `first` merged · PR #\d+/);
    expect(card.text).toMatch(/• `second` merged · PR #\d+ · after first/);
    expect(texts(threadTs)).toContain(`Plan ${planId} completed. Merged in order: first -> second.`);
    await screenshot(product.slack.url, 'plan-doors-slack');
  });

  it('a plan started over the HTTP API: each unit is its own conversation (its id, its Thread), a steer there reaches that unit only, the plan merges in order', async () => {
    const repo = `${owner}/api`;
    const started = await product.api('/plans', { as: 'ana', body: { name: 'notes', repo, model, units: units(repo) } });
    expect(started.status).toBe(202);
    const accepted = (await started.json()) as { planId: string; units: Array<{ key: string; unitId: string }> };
    expect(accepted).toMatchObject({
      planId: `plan:${repo}:notes`,
      units: [
        { key: 'first', unitId: `unit:${repo}:notes-first` },
        { key: 'second', unitId: `unit:${repo}:notes-second` },
      ],
    });
    await firstIsCoding(accepted.planId);
    const [first, second] = accepted.units;
    const steered = await product.api(`/units/${encodeURIComponent(first.unitId)}/steer`, {
      as: 'ana',
      body: { text: 'Also write a second line to first.txt.' },
    });
    expect(steered.status).toBe(200);
    const live = (await (await product.api(`/plans/${encodeURIComponent(accepted.planId)}`, { as: 'ana' })).json()) as {
      units: Array<{ key: string; links: { self: string } }>;
    };
    expect(live.units.map((unit) => unit.links.self)).toEqual(
      accepted.units.map((unit) => `/api/v1/units/${encodeURIComponent(unit.unitId)}`),
    );

    const plan = await record<PlanRecord>(accepted.planId);
    await mergedInOrder(repo, plan);
    await steeredOnlyTheFirst(plan);
    // One conversation per unit: each unit's Thread is its own.
    for (const unit of [first, second]) {
      const description = await client.workflow.getHandle(unit.unitId).describe();
      expect(description.typedSearchAttributes.get(Thread)).toBe(`${accepted.planId}/${unit.key}`);
    }
    const ended = (await (await product.api(`/plans/${encodeURIComponent(accepted.planId)}`, { as: 'ana' })).json()) as {
      record: { outcome: string; report: string };
    };
    expect(ended.record).toMatchObject({
      outcome: 'completed',
      report: `Plan ${accepted.planId} completed. Merged in order: first -> second.`,
    });
  });

  it('a plan the conductor drafts in Slack starts when the person who asked confirms it, and only then', async () => {
    const repo = `${owner}/chat`;
    // The person's model choice carries over to the plan's units: as a coding run, the same script works slowly.
    const drafting = product.script('conductor-drafts', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'first.txt' },
            text: 'Working slowly.',
            toolCalls: [{ name: 'bash', input: { command: 'sleep 3391' } }],
          },
          {
            text: 'Drafting.',
            toolCalls: [
              {
                name: 'plan_draft',
                input: {
                  name: 'drafted',
                  repo,
                  mergeAuthority: false,
                  units: [{ key: 'only', request: 'Write first.txt with one line.' }],
                },
              },
            ],
          },
        ],
      },
      { text: 'Drafted plan: {{lastToolResult}}' },
    ]);
    const said = await product.slack.userSays({
      channel: CHANNEL,
      user: ANA,
      text: `<@${SLACK_BOT}> agent:conductor model:${drafting} split the readme work into changes`,
    });
    const threadTs = said.message.ts;
    const texts = () => product.slack.state.thread(CHANNEL, threadTs).map((message) => message.text);
    await waitUntil(
      async () => texts(),
      (found) => found.some((text) => text.includes('Nothing has started')),
      120_000,
    );
    expect(
      await client.workflow
        .getHandle(`plan:${repo}:drafted`)
        .describe()
        .catch(() => undefined),
    ).toBeUndefined();
    // Someone else cannot confirm it.
    await product.slack.userSays({ channel: CHANNEL, user: 'U0BOB', threadTs, text: 'plan confirm' });
    await waitUntil(
      async () => texts(),
      (found) => found.some((text) => text.includes('is for the person who asked for it')),
    );
    expect(
      await client.workflow
        .getHandle(`plan:${repo}:drafted`)
        .describe()
        .catch(() => undefined),
    ).toBeUndefined();
    // The person who asked confirms: the plan starts, its unit in a thread of its own.
    await product.slack.userSays({ channel: CHANNEL, user: ANA, threadTs, text: 'plan confirm' });
    await waitUntil(
      async () => texts(),
      (found) => found.some((text) => text.startsWith(`Started plan plan:${repo}:drafted: 1 unit (only).`)),
    );
    const plan = client.workflow.getHandle(`plan:${repo}:drafted`);
    await waitUntil(
      () => plan.query(planStateQuery),
      (state) => state.units[0].status !== 'waiting',
      60_000,
    );
    expect((await plan.describe()).typedSearchAttributes.get(Requester)).toBe(ANA);
    // The stop reaction on the plan's card stops the plan, for the person who asked; anyone else's changes nothing.
    const card = await waitUntil(
      async () => product.slack.state.thread(CHANNEL, threadTs).find((message) => message.metadata?.event_type === 'switchboard_plan_card'),
      (found) => found !== undefined,
    );
    await product.slack.react({ channel: CHANNEL, user: 'U0BOB', ts: card!.ts, name: 'octagonal_sign' });
    await product.slack.react({ channel: CHANNEL, user: ANA, ts: card!.ts, name: 'octagonal_sign' });
    const stopped = await record<PlanRecord>(plan.workflowId);
    expect(stopped.outcome).toBe('stopped');
    const unitRecord = await record<UnitRecord>(stopped.units[0].unitId);
    expect(unitRecord).toMatchObject({ outcome: 'stopped', endedBy: expect.stringContaining(`stopped by ${ANA}`) });
  });

  it("plans from MCP: the plan tool and a plan asked in ask's text start plans through the same admission; stop stops one", async () => {
    const repo = `${owner}/api`;
    const viaTool = await product.mcp('ana', 'plan', {
      name: 'mcp-tool',
      repo,
      model,
      units: [{ key: 'only', request: 'Write first.txt.' }],
    });
    expect(viaTool.isError).toBeFalsy();
    expect(viaTool.structuredContent).toMatchObject({
      planId: `plan:${repo}:mcp-tool`,
      units: [{ key: 'only', unitId: `unit:${repo}:mcp-tool-only` }],
    });
    const text = ['plan', 'name: mcp-text', `model: ${model}`, 'units:', '  - key: only', '    request: Write first.txt.'].join('\n');
    const viaAsk = await product.mcp('ana', 'ask', { text, repo, waitSeconds: 0 });
    expect(viaAsk.structuredContent).toMatchObject({ kind: 'plan', planId: `plan:${repo}:mcp-text` });
    expect(JSON.stringify(viaAsk.content)).toContain(`Started plan plan:${repo}:mcp-text: 1 unit (only).`);
    for (const planId of [`plan:${repo}:mcp-tool`, `plan:${repo}:mcp-text`]) {
      const status = await product.mcp('ana', 'plan_status', { planId });
      expect(status.structuredContent).toMatchObject({ planId, state: 'running' });
      expect((await product.mcp('ana', 'stop', { id: planId, reason: 'test over' })).isError).toBeFalsy();
      expect((await record<PlanRecord>(planId)).outcome).toBe('stopped');
    }
  });
});

function yamlUnit(unit: { key: string; request: string; dependsOn?: string[] }): string[] {
  return [
    `  - key: ${unit.key}`,
    `    request: ${unit.request}`,
    ...(unit.dependsOn ? [`    dependsOn: [${unit.dependsOn.join(', ')}]`] : []),
  ];
}

/** The local Slack's page as a person sees it, saved for a look (SCREENSHOT_DIR, else the temp folder). */
async function screenshot(url: string, name: string): Promise<void> {
  const browser = await launchChromium({ width: 1200, height: 1400 });
  try {
    const page = await browser.context.newPage();
    await page.goto(url);
    await page.waitForLoadState('networkidle').catch(() => undefined);
    await page.screenshot({ path: join(process.env.SCREENSHOT_DIR ?? tmpdir(), `${name}.png`), fullPage: true });
  } finally {
    await browser.close();
  }
}
