/**
 * The people, places and words of the offline demo's two stories (a Slack request, then an
 * issue assigned on GitHub). The scripted model that plays
 * Switchboard's side is `examples/demo/session.yaml`; the repository it works on is
 * `examples/demo/repo` (its `npm test` fails on `main`).
 */
export const DEMO = {
  team: { id: 'T0DEMO', name: 'acme' },
  bot: { userId: 'U0SWITCHBOARD', botId: 'B0SWITCHBOARD', name: 'switchboard' },
  channel: { id: 'C0DEMODEV', name: 'dev' },
  person: { id: 'U0DEMOANA', name: 'ana', real_name: 'Ana Lima' },
  repo: { owner: 'acme', name: 'invoices', folder: 'examples/demo/repo' },
  /** The channel's default repository makes `in acme/invoices:` unnecessary in the mention. */
  mention: (botUserId: string) =>
    `<@${botUserId}> fix the failing invoice total test in test/total.test.js, a 10% discount should take 10% off`,
  /** `models.scriptedDirs` name and the script every run of the demo plays. */
  scriptedDir: { name: 'demo', folder: 'examples/demo' },
  model: 'scripted:demo/session.yaml',
  /** The second story's issue, filed and assigned to the bot on GitHub once the first PR is merged. */
  issue: {
    title: 'Show invoice totals in dollars',
    body: 'Invoices print raw cents today (3000). Add `formatCents(cents)` in src/format.js: 1234 gives "$12.34" and -50 gives "-$0.50", with tests.',
  },
  /** What the local GitHub's CI runs on each pull request head. */
  ciCommand: 'npm test',
} as const;

export const fullRepoName = `${DEMO.repo.owner}/${DEMO.repo.name}`;
