import { createHash } from 'node:crypto';
import { chownSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryStore } from './directory-store';

const keyOf = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('DirectoryStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-payloads-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads back what it wrote and refuses a key that is not a sha256', async () => {
    const store = new DirectoryStore(dir);
    const bytes = new TextEncoder().encode('a payload');
    await store.put(keyOf(bytes), bytes);
    expect(Buffer.from(await store.get(keyOf(bytes))).toString()).toBe('a payload');
    await expect(store.put('sha256:../../etc', bytes)).rejects.toThrow(/not a claim-check key/);
  });

  // Only root can write as another user; elsewhere the case cannot arise.
  (process.getuid?.() === 0 ? it : it.skip)(
    "writes as the folder's owner when root shares it with a server running as that owner",
    async () => {
      chownSync(dir, 65534, 65534);
      const store = new DirectoryStore(dir);
      const bytes = new TextEncoder().encode('from a root worker');
      await store.put(keyOf(bytes), bytes);
      const [folder] = readdirSync(dir);
      const file = join(dir, folder, keyOf(bytes).slice('sha256:'.length));
      expect([statSync(join(dir, folder)).uid, statSync(file).uid, statSync(file).gid]).toEqual([65534, 65534, 65534]);
    },
  );
});
