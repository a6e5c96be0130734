import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { COLLABORATOR_ROLES, type CollaboratorRole } from './state';

/** Every file under `dir` (text, by path relative to it with `/`), to seed a repository; skips `.git` and `node_modules`. */
export function filesFromFolder(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === '.git' || entry.name === 'node_modules') continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files[relative(dir, path).split(sep).join('/')] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

/**
 * Collaborators to seed, from `owner/name:login=role,…` (LOCAL_GITHUB_COLLABORATORS), e.g.
 * `acme/invoices:ana=write,acme/invoices:bob=triage`. Throws a one-line reason for a bad entry.
 */
export function parseCollaborators(text: string): Array<{ repo: string; login: string; role: CollaboratorRole }> {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^([^/\s:]+\/[^/\s:]+):([^=\s]+)=(\w+)$/.exec(entry);
      const role = match?.[3] as CollaboratorRole | undefined;
      if (!match || !role || !(COLLABORATOR_ROLES as readonly string[]).includes(role))
        throw new Error(`expected owner/name:login=role (role one of ${COLLABORATOR_ROLES.join(', ')}), got ${entry}`);
      return { repo: match[1], login: match[2], role };
    });
}
