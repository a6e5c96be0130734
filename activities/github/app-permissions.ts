/**
 * The GitHub App permissions Switchboard uses, in one list: the App manifest of `switchboard
 * setup github` asks for exactly these, `switchboard doctor` checks an App and its installation
 * against them, and every installation token is minted narrowed to one identity's column (a
 * `read` run's token can write nothing, so even a shell in its sandbox cannot push).
 */
export type Access = 'read' | 'write';

export interface AppPermission {
  /** GitHub's permission name (`pull_requests`, …). */
  name: string;
  /** What a `read` identity's token gets, and a `write` one's. */
  read: Access;
  write: Access;
  why: string;
}

export const GITHUB_APP_PERMISSIONS: readonly AppPermission[] = [
  { name: 'contents', read: 'read', write: 'write', why: 'clone, read files and trees, push unit branches, merge' },
  { name: 'pull_requests', read: 'read', write: 'write', why: 'read pull requests, open and update them, post reviews' },
  { name: 'issues', read: 'read', write: 'write', why: 'read issues, post and update comments, reactions and labels' },
  { name: 'checks', read: 'read', write: 'read', why: 'wait for CI on the head commit (check runs and suites)' },
  { name: 'statuses', read: 'read', write: 'read', why: 'CI systems that report commit statuses instead of checks' },
  {
    name: 'metadata',
    read: 'read',
    write: 'read',
    why: "mandatory; also how the actor gate reads a commenter's role (collaborators/{username}/permission)",
  },
];

/** The permissions of one identity's installation tokens. */
export function tokenPermissions(scope: Access): Record<string, Access> {
  return Object.fromEntries(GITHUB_APP_PERMISSIONS.map((permission) => [permission.name, permission[scope]]));
}

/** What the App itself must hold: the most any identity needs, per permission. */
export function appPermissions(): Record<string, Access> {
  return tokenPermissions('write');
}

/** Whether `granted` (GitHub's `read`/`write`/`admin`) covers `needed`. */
export function covers(granted: string | undefined, needed: Access): boolean {
  const rank = { read: 1, write: 2, admin: 3 } as Record<string, number>;
  return (rank[granted ?? ''] ?? 0) >= rank[needed];
}
