import { resolve } from 'node:path';
import { startLocalGitHub } from '.';
import { startLocalCi } from './ci';
import { filesFromFolder, parseCollaborators } from './seed';

/**
 * The local GitHub on its own: `node dist/emulators/local-github/main.js`. It accepts the same
 * GITHUB_READ_TOKEN and GITHUB_WRITE_TOKEN as Switchboard, signs webhooks with
 * GITHUB_WEBHOOK_SECRET and delivers them to LOCAL_GITHUB_WEBHOOK_URL (default
 * http://127.0.0.1:3000/webhooks/github). LOCAL_GITHUB_REPOS seeds repositories from folders
 * (`owner/name=folder,…`; default `acme/invoices=examples/demo/repo`), LOCAL_GITHUB_COLLABORATORS
 * gives people roles on them (`owner/name:login=role,…`: who may trigger Switchboard from a
 * comment, since its actor gate reads the role; default none), and LOCAL_GITHUB_CI is
 * the command its CI runs on each pull request head (default `npm test`; empty for no CI).
 */
async function main(): Promise<void> {
  const read = process.env.GITHUB_READ_TOKEN;
  const write = process.env.GITHUB_WRITE_TOKEN;
  if (!read || !write) {
    console.error('Set GITHUB_READ_TOKEN and GITHUB_WRITE_TOKEN (the same values Switchboard gets).');
    process.exitCode = 1;
    return;
  }
  const github = await startLocalGitHub({
    tokens: { read: [read], write: [write] },
    port: Number(process.env.LOCAL_GITHUB_PORT ?? 3200),
    webhookUrl: process.env.LOCAL_GITHUB_WEBHOOK_URL ?? 'http://127.0.0.1:3000/webhooks/github',
    ...(process.env.GITHUB_WEBHOOK_SECRET ? { webhookSecret: process.env.GITHUB_WEBHOOK_SECRET } : {}),
  });
  const seeds = (process.env.LOCAL_GITHUB_REPOS ?? 'acme/invoices=examples/demo/repo').split(',').filter(Boolean);
  for (const seed of seeds) {
    const [fullName, folder] = seed.split('=');
    const [owner, name] = fullName.split('/');
    if (!owner || !name || !folder) {
      console.error(`LOCAL_GITHUB_REPOS: expected owner/name=folder, got ${seed}`);
      process.exitCode = 1;
      await github.close();
      return;
    }
    github.createRepo(owner, name, filesFromFolder(resolve(folder)));
    console.log(`Repository ${fullName} from ${folder}: clone ${github.gitUrl}/${fullName}.git`);
  }
  try {
    for (const { repo, login, role } of parseCollaborators(process.env.LOCAL_GITHUB_COLLABORATORS ?? '')) {
      github.setCollaborator(repo, login, role);
      console.log(`${login} has the ${role} role on ${repo}`);
    }
  } catch (error) {
    console.error(`LOCAL_GITHUB_COLLABORATORS: ${(error as Error).message}`);
    process.exitCode = 1;
    await github.close();
    return;
  }
  const command = process.env.LOCAL_GITHUB_CI ?? 'npm test';
  const ci = command ? startLocalCi(github, { command }) : undefined;
  console.log(
    `Local GitHub on ${github.gitUrl} (REST ${github.apiUrl})${command ? `; CI runs \`${command}\` on each pull request head` : ''}`,
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void (ci?.close() ?? Promise.resolve()).then(() => github.close()));
  }
}

if (require.main === module) void main();
