/**
 * The shell scripts of a unit's git steps. They run inside the workspace's sandbox as its user
 * (WorkspaceGit.script: `set -e`, `g` is hardened git, the working directory is the checkout,
 * `$WORK` names it), so everything they touch is the sandbox's own.
 */

/**
 * What earlier commands configured in the checkout is not ours to trust (hooks, fsmonitor,
 * filters, `insteadOf`, includes, aliases, ssh commands): every step writes the configuration
 * afresh, keeping only the remote it was given (or the one there), with no hooks and no local
 * attributes. `.git` must be a real folder for commit and push: a link or a gitfile is refused.
 */
const FRESH_CONFIG = String.raw`
real_git_dir() {
  if [ -L .git ] || [ ! -d .git ]; then echo "the checkout's .git is not a folder (a link or a file was put there); nothing was done" >&2; exit 5; fi
}
fresh_config() {
  keep="$1"
  [ -n "$keep" ] || keep="$(git config --file .git/config remote.origin.url 2>/dev/null || true)"
  rm -rf .git/config .git/config.lock .git/hooks .git/info/attributes
  g init -q .
  g config core.bare false
  if [ -n "$keep" ]; then g remote add origin "$keep"; fi
}
`;

/**
 * Makes the checkout whole and switches it to the round's branch. Untracked files are removed,
 * ignored ones (dependencies, build output) kept: what the repository's setup installed stays
 * with the workspace, as its setup marker says (workflows/run/repo-context.ts). A kill can land anywhere:
 * inside `git init` (a `.git` with only `description` and `hooks/`), or mid-command (stale
 * `*.lock` files). So the git directory is built aside and renamed into place (`.git` is either
 * whole or absent), a broken one (or a link, or a gitfile) is moved away before it is removed,
 * lock files are removed, and the configuration is written afresh on every call.
 *
 * With a repository cache (a resident workspace, docs/sandbox.md#warm-repositories) the checkout
 * borrows the cache's objects as git alternates and starts its remote-tracking branches at the
 * cache's tips, so its fetch brings only what the cache lacks (the fetch then corrects every
 * branch from the remote). A checkout that borrowed from a cache it no longer has starts afresh;
 * one whose fetch or switch fails while borrowing is made again without the cache
 * (`cacheFallback=` says why).
 * Arguments: remote, branch, base ('' = the remote's default branch), commit ('' = the branch tip),
 * cache objects folder ('' = none), the cache's tips (`<sha> <ref>` lines).
 * Prints `head=`, `base=`, `baseSha=`, `work=`, `cache=` (borrowing or not) and `objects=` (the
 * objects the checkout holds of its own, beyond the cache).
 */
export const CHECKOUT_SCRIPT = String.raw`${FRESH_CONFIG}
remote="$1"; branch="$2"; base="$3"; commit="$4"; cache="${'$'}{5:-}"; tips="${'$'}{6:-}"
alternates=.git/objects/info/alternates
rm -rf .git-building-* .git-discarded-*
discard_git() {
  mv .git ".git-discarded-$$"
  rm -rf ".git-discarded-$$"
}
new_git() {
  building=".git-building-$$"
  g init -q --bare "$building"
  mv "$building" .git
  fresh_config "$remote"
}
if [ -e .git ] || [ -L .git ]; then
  if [ -d .git ] && [ ! -L .git ]; then find .git -name '*.lock' -type f -delete 2>/dev/null || true; fi
  if [ -L .git ] || [ ! -d .git ] || [ "$(g rev-parse --absolute-git-dir 2>/dev/null)" != "$WORK/.git" ] || ! g count-objects >/dev/null 2>&1; then
    discard_git
  elif [ -s "$alternates" ] && { [ -z "$cache" ] || [ ! -d "$cache/pack" ] || [ "$(cat "$alternates")" != "$cache" ]; }; then
    # Its objects were partly the cache's, which this workspace no longer has.
    discard_git
  fi
fi
if [ ! -d .git ]; then new_git; fi
fresh_config "$remote"
if [ -n "$cache" ] && [ -d "$cache/pack" ]; then
  mkdir -p .git/objects/info
  printf '%s\n' "$cache" > "$alternates"
  printf '%s\n' "$tips" | while read -r sha ref; do
    case "$ref" in refs/heads/?*) ;; *) continue ;; esac
    tracking="refs/remotes/origin/${'$'}{ref#refs/heads/}"
    g rev-parse -q --verify "$tracking" >/dev/null || g update-ref "$tracking" "$sha" 2>/dev/null || true
  done
fi
fetch_and_switch() {
  g fetch -q --prune origin '+refs/heads/*:refs/remotes/origin/*' || return 1
  if [ -z "$base" ]; then
    base="$(g ls-remote --symref origin HEAD | sed -n 's|^ref: refs/heads/\(.*\)[[:space:]]HEAD$|\1|p')" || return 1
    [ -n "$base" ] || base=main
  fi
  if [ -n "$commit" ]; then start="$commit"
  elif g rev-parse --verify -q "refs/remotes/origin/$branch" >/dev/null; then start="origin/$branch"
  else start="origin/$base"; fi
  g checkout -q -f -B "$branch" "$start" && g reset -q --hard "$start" && g clean -qfd
}
if [ -s "$alternates" ]; then
  failed="$TMPDIR/switchboard-checkout-$$.err"
  if ! fetch_and_switch 2>"$failed"; then
    echo "cacheFallback=$(tail -n 1 "$failed" | tr -d '\r' | cut -c1-300)"
    discard_git
    new_git
    fetch_and_switch
  fi
  rm -f "$failed"
else
  fetch_and_switch
fi
echo "head=$(g rev-parse HEAD)"
echo "base=$base"
echo "baseSha=$(g rev-parse --verify -q "refs/remotes/origin/$base" || true)"
echo "work=$WORK"
if [ -s "$alternates" ]; then echo "cache=1"; else echo "cache=0"; fi
echo "objects=$(g count-objects -v | sed -n 's/^count: //p; s/^in-pack: //p' | awk '{ n += $1 } END { print n + 0 }')"
`;

/**
 * Commits whatever the round changed (a commit killed midway leaves `index.lock` or a ref lock;
 * the commit itself is all or nothing). Argument: the message. Prints `head=`.
 */
export const COMMIT_SCRIPT = String.raw`${FRESH_CONFIG}
real_git_dir
find .git -name '*.lock' -type f -delete 2>/dev/null || true
fresh_config ""
g add -A
if ! g diff --cached --quiet; then
  g -c user.name=Switchboard -c user.email=switchboard@users.noreply.github.com commit --no-verify -q -m "$1"
fi
echo "head=$(g rev-parse HEAD)"
`;

/**
 * Pushes a commit with a lease: `git push --force-with-lease=<ref>:<expected> origin <sha>:<ref>`.
 * Arguments: remote, ref, source ref, expected remote sha ('-' = ask the remote first), dry run ('1').
 * Prints `sha=` (the local commit), `expected=`, then `pushed=0|1`; git's own output on stderr.
 * Exit 3: the source is not a commit; 4: the remote could not be asked; 5: `.git` is not a folder.
 */
export const PUSH_SCRIPT = String.raw`${FRESH_CONFIG}
remote="$1"; ref="$2"; source="$3"; expected="$4"; dry="$5"
real_git_dir
fresh_config ""
sha="$(g rev-parse --verify "$source^{commit}" 2>/dev/null)" || exit 3
echo "sha=$sha"
if [ "$expected" = "-" ]; then
  listed="$(g ls-remote "$remote" "$ref")" || exit 4
  expected="$(printf '%s' "$listed" | cut -f1)"
fi
echo "expected=$expected"
set +e
if [ "$dry" = 1 ]; then g push --porcelain --dry-run "--force-with-lease=$ref:$expected" "$remote" "$sha:$ref"
else g push --porcelain "--force-with-lease=$ref:$expected" "$remote" "$sha:$ref"; fi
code=$?
set -e
if [ "$code" = 0 ]; then echo "pushed=1"; else echo "pushed=0"; fi
`;

/** What the remote branch is at now (after a refused push: did our own earlier attempt land?). Prints `remote=`. */
export const REMOTE_SHA_SCRIPT = String.raw`${FRESH_CONFIG}
real_git_dir
fresh_config ""
listed="$(g ls-remote "$1" "$2")" || exit 4
echo "remote=$(printf '%s' "$listed" | cut -f1)"
`;
