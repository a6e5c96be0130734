import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../infra/paths';
import { SLACK_EVENTS, SLACK_METHODS, slackBotEvents, slackBotScopes } from './app-needs';

/** The TypeScript files (not tests) of a folder, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

describe("the Slack app's needs", () => {
  const root = projectRoot();
  // Files that hold a Slack Web API client: every `<client>.<family>.<method>(` in them is a call Slack answers.
  // (The local Slack, which answers them, lives in emulators/, outside these folders.)
  const slackFiles = ['activities', 'server', 'infra']
    .flatMap((dir) => sources(join(root, dir)))
    .filter((file) => /SlackWebClient|@slack\/web-api|createSlackWebClient/.test(readFileSync(file, 'utf8')));

  it('list exactly the Web API methods the code calls (and auth.test, which Bolt calls at start)', () => {
    const called = new Set(['auth.test']);
    for (const file of slackFiles) {
      const text = readFileSync(file, 'utf8');
      for (const [, family, method] of text.matchAll(
        /\.(chat|conversations|files|reactions|users|auth|team|views|pins|bookmarks)\s*\.([a-zA-Z]+)\(/g,
      ))
        called.add(`${family}.${method}`);
      for (const [, method] of text.matchAll(/apiCall\(\s*'([a-z]+\.[a-zA-Z.]+)'/g)) called.add(method);
    }
    expect(slackFiles.length).toBeGreaterThan(3);
    expect([...called].sort()).toEqual(Object.keys(SLACK_METHODS).sort());
  });

  it('register the Bolt listeners by the listed event names, and no other', () => {
    const frontEnd = readFileSync(join(root, 'server', 'slack', 'front-end.ts'), 'utf8');
    const registered = [...frontEnd.matchAll(/app\.event\(SLACK_EVENT\.([a-z_]+)/g)].map((match) => match[1]);
    expect(registered.sort()).toEqual(Object.keys(SLACK_EVENTS).sort());
    expect(frontEnd).not.toMatch(/app\.event\('/);
  });

  it('are the scopes of those methods and events, each with why', () => {
    expect(slackBotScopes().map((need) => need.scope)).toEqual([
      'app_mentions:read',
      'channels:history',
      'chat:write',
      'files:write',
      'groups:history',
      'im:history',
      'reactions:read',
      'reactions:write',
      'users:read',
    ]);
    expect(slackBotScopes().every((need) => need.why !== 'used by Switchboard')).toBe(true);
    expect(slackBotEvents()).toEqual(['app_mention', 'message.channels', 'message.groups', 'message.im', 'reaction_added']);
  });
});
