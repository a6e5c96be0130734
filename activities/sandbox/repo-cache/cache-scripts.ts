/**
 * The scripts of a repository cache's own sandbox (WorkspaceGit.script: `set -e`, `g` is hardened
 * git, the working directory is the cache's disk). Nothing else ever runs there.
 */

/**
 * The mirror holds refs and the configuration written here, nothing the next step trusts: on
 * every step its configuration, hooks and `info/` are written afresh, and its only object store
 * besides the packs of this fetch is the published one (read-only at `$published`).
 */
const FRESH_MIRROR = String.raw`
if [ -L mirror.git ] || { [ -e mirror.git ] && [ ! -d mirror.git ]; }; then rm -rf mirror.git; fi
if [ ! -d mirror.git ]; then
  rm -rf mirror.git-building
  g init -q --bare mirror.git-building
  mv mirror.git-building mirror.git
fi
cd mirror.git
find . -name '*.lock' -type f -delete 2>/dev/null || true
rm -rf config hooks info objects/info
g init -q --bare .
mkdir -p objects/info objects/pack
printf '%s\n' "$published" > objects/info/alternates
`;

/**
 * Fetches what the published store lacks, with the read identity through the cache's door.
 * Every object arrives in a pack (no loose objects), checked by git's fsck on the way in; packs
 * an earlier attempt left unindexed are dropped, and with them any ref they alone held up.
 * Arguments: remote, published objects folder. Prints `pack=` per new pack and `tip=<sha> <ref>`.
 */
export const CACHE_FETCH_SCRIPT = String.raw`
remote="$1"; published="$2"
rm -rf verified
${FRESH_MIRROR}
g config remote.origin.url "$remote"
if [ -n "$(ls objects/pack)" ] || ls -d objects/[0-9a-f][0-9a-f] >/dev/null 2>&1; then
  rm -rf objects/pack/* objects/[0-9a-f][0-9a-f]
  g for-each-ref --format='%(refname)' | while read -r ref; do
    g rev-parse -q --verify "$ref^{commit}" >/dev/null 2>&1 || g update-ref -d "$ref"
  done
fi
g -c fetch.unpackLimit=1 -c transfer.unpackLimit=1 -c transfer.fsckObjects=true -c fetch.writeCommitGraph=false \
  -c gc.auto=0 -c maintenance.auto=false fetch -q --prune --no-tags origin '+refs/heads/*:refs/heads/*'
for pack in objects/pack/pack-*.pack; do [ -f "$pack" ] && echo "pack=${'$'}{pack##*/}"; done
g for-each-ref --format='tip=%(objectname) %(refname)' refs/heads
`;

/**
 * Indexes each new pack again, with no network and in a sandbox started afresh: the index a
 * consumer's git trusts (which object is where) is computed here from the pack's bytes with
 * `--strict` (every object well formed, every link present), never taken from the fetch. The
 * verified pack and index go to `verified/pack/`, where the worker seals them into the store.
 * Argument: the published objects folder. Prints `verified=pack-<hash>` per pack.
 */
export const CACHE_INDEX_SCRIPT = String.raw`
published="$1"
rm -rf verified
mkdir -p verified/pack
${FRESH_MIRROR}
export GIT_ALTERNATE_OBJECT_DIRECTORIES="$WORK/verified"
for pack in objects/pack/pack-*.pack; do
  { [ -f "$pack" ] && [ ! -L "$pack" ]; } || continue
  base="${'$'}{pack%.pack}"
  rm -f "$base.idx" "$base.keep" "$base.rev" "$base.bitmap" "$base.promisor" "$base.mtimes"
  index="$WORK/verified/pack/incoming-$$.idx"
  name="$(g index-pack --strict -o "$index" "$pack" | head -n 1)"
  case "$name" in '' | *[!0-9a-f]*) echo "index-pack named no pack for $pack" >&2; exit 6 ;; esac
  mv "$pack" "$WORK/verified/pack/pack-$name.pack"
  mv "$index" "$WORK/verified/pack/pack-$name.idx"
  echo "verified=pack-$name"
done
rm -rf objects/pack/*
`;
