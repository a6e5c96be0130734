import { type Demo, startDemo } from './demo';
import { DEMO, fullRepoName } from './session';
import { reviewThreadLines } from './ready';

/**
 * `npm run demo`: the whole loop offline (docs/ship.md, "The offline path"). Prints the
 * local Slack page, the Web UI links of every workflow as it appears, and the ready report;
 * then the second story (an issue assigned on GitHub, turned into a ready PR with a review on
 * its lines) and its ready report; then keeps everything up for browsing until Ctrl-C, which
 * stops it all in order.
 * Preferred ports (each replaced by a free one when busy): DEMO_SLACK_PORT (3100),
 * DEMO_GITHUB_PORT (3200), PORT (3000), SWITCHBOARD_TEMPORAL_PORT (7233),
 * SWITCHBOARD_TEMPORAL_UI_PORT (8233).
 */
async function main(): Promise<void> {
  const print = (line: string) => console.log(line);
  const aborted = new AbortController();
  const port = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
  // Settles once the demo is up or has failed to start (having cleaned up after itself).
  // Traces go where the standard variables say (docs/operations.md#traces), as for `npm start`.
  const otel = Object.fromEntries(
    Object.entries(process.env).filter(([name, value]) => name.startsWith('OTEL_') && value !== undefined),
  ) as Record<string, string>;
  const starting: Promise<Demo | undefined> = startDemo({
    print,
    env: otel,
    signal: aborted.signal,
    ports: {
      slack: port('DEMO_SLACK_PORT', 3100),
      github: port('DEMO_GITHUB_PORT', 3200),
      http: port('PORT', 3000),
      temporal: port('SWITCHBOARD_TEMPORAL_PORT', 7233),
      ui: port('SWITCHBOARD_TEMPORAL_UI_PORT', 8233),
    },
  }).catch((error: unknown) => {
    if (!aborted.signal.aborted) {
      console.error(`The demo could not start: ${(error as Error).message}`);
      process.exitCode = 1;
    }
    return undefined;
  });

  let stopped: Promise<void> | undefined;
  const stop = (why: string) => {
    if (stopped) return stopped;
    print(`\n${why}: stopping the unit, Switchboard, the local GitHub and Slack, and Temporal ...`);
    aborted.abort();
    stopped = starting.then(async (demo) => {
      await demo?.stop();
      print('Stopped; nothing of the demo is left running.');
    });
    return stopped;
  };
  process.on('SIGINT', () => void stop('Ctrl-C'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  const demo = await starting;
  if (!demo) return;
  if (aborted.signal.aborted) return void (await stopped);
  print(`Switchboard's log: ${demo.logFile}`);
  try {
    const ready = await demo.ready();
    print(`\nReady: ${ready.message.text}`);
    const pull = demo.github.state.repo(DEMO.repo.owner, DEMO.repo.name)?.issues.get(ready.pullRequest);
    print(`  PR #${ready.pullRequest} "${pull?.title ?? ''}" from ${pull?.pull?.head ?? 'main'}, head ${ready.headSha.slice(0, 12)}.`);
    // The review conversation: the finding's thread, the unit's reply in it, and its resolution.
    for (const line of reviewThreadLines(pull)) print(line);
    print(`  The conversation in the local Slack: ${demo.slackPageUrl}`);
    if (demo.threadQueryUrl) print(`  Every workflow of it in the Web UI: ${demo.threadQueryUrl}`);

    print('\nThe second story, on GitHub:');
    const story = await demo.issueStory(ready.pullRequest);
    print(`\nOn issue #${story.issue}: ${story.readyText}`);
    const issuePull = demo.github.state.repo(DEMO.repo.owner, DEMO.repo.name)?.issues.get(story.pullRequest);
    const branch = issuePull?.pull?.head ?? 'main';
    print(
      `  PR #${story.pullRequest} "${issuePull?.title ?? ''}" from ${branch} says: ${issuePull?.body.split('\n').find((line) => line.startsWith('Fixes #')) ?? ''}`,
    );
    for (const comment of story.inline)
      print(
        `  Review comment on ${comment.path}:${comment.line} (${comment.side}): ${comment.body.split('\n')[0]}${comment.suggestion ? ' [with a suggestion]' : ''}`,
      );
    print('  Read the review and its line comments, and clone the branch:');
    const api = `${demo.github.apiUrl}/repos/${fullRepoName}/pulls/${story.pullRequest}`;
    print(`    curl -s -H 'authorization: token ${demo.readToken}' ${api}/reviews ${api}/comments`);
    print(`    git clone -b ${branch} ${demo.github.gitUrl.replace('://', `://demo:${demo.readToken}@`)}/${fullRepoName}.git`);
    print(`  Merge it as ${DEMO.person.name} would, and watch the unit settle on its session page:`);
    print(`    curl -s -X PUT -H 'authorization: token ${demo.maintainerToken}' ${api}/merge`);
    print(`    ${demo.sessionUrl(story.unitId)}`);
    print('\nEverything stays up so you can look around. Ctrl-C stops it all.');
  } catch (error) {
    if (aborted.signal.aborted) return void (await stopped);
    console.error(`\nThe demo did not reach the ready report: ${(error as Error).message}`);
    process.exitCode = 1;
    await stop('Failed');
    return;
  }
  // Up until Ctrl-C; the signal handlers keep the process alive meanwhile.
  await new Promise<void>((resolve) => {
    const check = () => (stopped ? void stopped.then(resolve) : void setTimeout(check, 250));
    check();
  });
}

if (require.main === module) void main();
