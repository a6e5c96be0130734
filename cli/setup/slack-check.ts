import { type LoadedConfig, readSecret } from '../../infra/config';
import { classifySlackError, createSlackWebClient } from '../../activities/slack/slack-client';
import { slackBotScopes } from '../../activities/slack/app-needs';

/** One line of a doctor part, and the problem to list at the end when it failed. */
export interface CheckLine {
  line: string;
  problem?: string;
}

/**
 * The Slack part of `switchboard doctor`: with a bot token, `auth.test` says whose token it is and
 * Slack reports the token's scopes in the `x-oauth-scopes` header of its answer; each scope the
 * app needs (activities/slack/app-needs.ts, the manifest's list) that is missing is named with
 * why, since the call that needs it would be refused with `missing_scope`. Without a token the
 * Slack front end is simply off (not a problem).
 */
export async function checkSlack(loaded: LoadedConfig, env: NodeJS.ProcessEnv): Promise<CheckLine[]> {
  const { slack } = loaded.config;
  const token = readSecret('slackBotToken', env);
  if (!token) return [{ line: 'info  slack: off (no SLACK_BOT_TOKEN); `npx switchboard setup slack` makes the app from a manifest' }];
  const lines: CheckLine[] = [];
  const secret = slack.mode === 'socket' ? 'slackAppToken' : 'slackSigningSecret';
  if (!readSecret(secret, env)) {
    const variable = slack.mode === 'socket' ? 'SLACK_APP_TOKEN' : 'SLACK_SIGNING_SECRET';
    lines.push({
      line: `FAIL  slack: ${variable} is not set (${slack.mode} mode)`,
      problem: `set ${variable} (the env file; docs/slack.md)`,
    });
  }
  const client = createSlackWebClient({ token, apiUrl: slack.apiUrl, timeoutMs: slack.requestTimeoutMs });
  let answer: Awaited<ReturnType<typeof client.auth.test>>;
  try {
    answer = await client.auth.test();
  } catch (error) {
    const failure = classifySlackError(error);
    const why =
      failure.kind === 'refused'
        ? `Slack refused the token (${failure.reason})`
        : `Slack did not answer (${failure.kind}: ${'reason' in failure ? failure.reason : 'rate limited'})`;
    lines.push({
      line: `FAIL  slack: auth.test at ${slack.apiUrl}: ${why}`,
      problem: 'give Switchboard a valid SLACK_BOT_TOKEN (the Bot User OAuth Token)',
    });
    return lines;
  }
  lines.push({
    line: `ok    slack: the bot ${answer.user ?? '?'} (${answer.user_id ?? '?'}) of workspace ${answer.team ?? '?'} (${answer.team_id ?? '?'})`,
  });
  const granted = new Set(answer.response_metadata?.scopes ?? []);
  if (granted.size === 0) {
    lines.push({
      line: 'FAIL  slack scopes: Slack reported none for this token (no x-oauth-scopes header): is it a bot token (xoxb-)?',
      problem: 'use the Bot User OAuth Token of the app made from the manifest',
    });
    return lines;
  }
  const missing = slackBotScopes().filter((need) => !granted.has(need.scope));
  if (missing.length === 0) {
    lines.push({ line: `ok    slack scopes: all ${slackBotScopes().length} the app uses are granted` });
  } else {
    for (const need of missing) lines.push({ line: `FAIL  slack scope ${need.scope} is missing: ${need.why}` });
    lines[lines.length - 1].problem =
      `add the missing Slack scopes (${missing.map((need) => need.scope).join(', ')}): regenerate the manifest with \`npx switchboard setup slack\`, update the app with it and reinstall`;
  }
  return lines;
}
