import { type LocalGitHub } from '../../emulators/local-github';
import { parseCollaborators } from '../../emulators/local-github/seed';
import { createActorGate } from './actor-gate';
import { createGitHubIdentities, type GitHubIdentities } from './identity';
import { localGitHubWithIdentities } from './test-support';

describe("the GitHub door's actor gate, against the local GitHub's collaborator permission API", () => {
  let github: LocalGitHub;
  let identities: GitHubIdentities;
  beforeAll(async () => {
    ({ github, identities } = await localGitHubWithIdentities());
    github.createRepo('acme', 'private', { 'README.md': 'x\n' }, { collaborators: { Tia: 'triage', mo: 'maintain', wes: 'write' } });
    github.createRepo('acme', 'public', { 'README.md': 'x\n' }, { private: false });
    github.createRepo('acme', 'hidden', { 'README.md': 'x\n' }, { hiddenFrom: ['read'], collaborators: { wes: 'admin' } });
    github.createRepo('ana', 'own', { 'README.md': 'x\n' });
  });
  afterAll(async () => github.close());

  const asked = (login: string) =>
    github.state.requests.filter((request) => request.path.endsWith(`/collaborators/${login}/permission`)).length;

  it("reads each person's role as GitHub computes it: owner, collaborator, a reader of a public repository, nobody", async () => {
    const gate = createActorGate(identities, { cacheMs: 0 });
    expect(await gate.roleOf('acme/private', 'tia')).toBe('triage');
    expect(await gate.roleOf('acme/private', 'mo')).toBe('maintain');
    expect(await gate.roleOf('acme/private', 'wes')).toBe('write');
    expect(await gate.roleOf('acme/private', 'mallory')).toBe('none');
    expect(await gate.roleOf('acme/public', 'mallory')).toBe('read');
    expect(await gate.roleOf('ana/own', 'ana')).toBe('admin');
    // A repository the read identity cannot see admits nobody.
    expect(await gate.roleOf('acme/hidden', 'wes')).toBe('none');
  });

  it('reuses an answer for cacheMs, then asks again (a role taken away counts from then on)', async () => {
    let now = 0;
    const gate = createActorGate(identities, { cacheMs: 60_000, now: () => now });
    expect(await gate.roleOf('acme/private', 'wes')).toBe('write');
    github.setCollaborator('acme/private', 'wes', undefined);
    const before = asked('wes');
    expect(await gate.roleOf('ACME/private', 'Wes')).toBe('write');
    expect(asked('wes')).toBe(before);
    now = 60_000;
    expect(await gate.roleOf('acme/private', 'wes')).toBe('none');
  });

  it('answers undefined when GitHub cannot be asked (no read identity, an error): the door then refuses', async () => {
    const none = createActorGate(createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl }), { cacheMs: 0 });
    expect(await none.roleOf('acme/private', 'tia')).toBeUndefined();
    github.faults.serverErrors({ method: 'GET', path: /\/collaborators\/tia\/permission$/ }, 1);
    expect(await createActorGate(identities, { cacheMs: 0 }).roleOf('acme/private', 'tia')).toBeUndefined();
  });

  it('seeds roles from LOCAL_GITHUB_COLLABORATORS, naming a bad entry', () => {
    expect(parseCollaborators('acme/app:ana=write, acme/app:bob=triage')).toEqual([
      { repo: 'acme/app', login: 'ana', role: 'write' },
      { repo: 'acme/app', login: 'bob', role: 'triage' },
    ]);
    expect(() => parseCollaborators('acme/app:ana=owner')).toThrow(/expected owner\/name:login=role .*got acme\/app:ana=owner/);
  });
});
