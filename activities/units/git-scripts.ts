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
 * Arguments: remote, branch, base ('' = the remote's default branch), commit ('' = the branch tip).
 * Prints `head=`, `base=`, `baseSha=` and `work=` lines.
 */
export const CHECKOUT_SCRIPT = String.raw`${FRESH_CONFIG}
remote="$1"; branch="$2"; base="$3"; commit="$4"
rm -rf .git-building-* .git-discarded-*
if [ -e .git ] || [ -L .git ]; then
  if [ -d .git ] && [ ! -L .git ]; then find .git -name '*.lock' -type f -delete 2>/dev/null || true; fi
  if [ -L .git ] || [ ! -d .git ] || [ "$(g rev-parse --absolute-git-dir 2>/dev/null)" != "$WORK/.git" ] || ! g count-objects >/dev/null 2>&1; then
    mv .git ".git-discarded-$$"
    rm -rf ".git-discarded-$$"
  fi
fi
if [ ! -d .git ]; then
  building=".git-building-$$"
  g init -q --bare "$building"
  mv "$building" .git
fi
fresh_config "$remote"
g fetch -q --prune origin '+refs/heads/*:refs/remotes/origin/*'
if [ -z "$base" ]; then
  base="$(g ls-remote --symref origin HEAD | sed -n 's|^ref: refs/heads/\(.*\)[[:space:]]HEAD$|\1|p')"
  [ -n "$base" ] || base=main
fi
if [ -n "$commit" ]; then start="$commit"
elif g rev-parse --verify -q "refs/remotes/origin/$branch" >/dev/null; then start="origin/$branch"
else start="origin/$base"; fi
g checkout -q -f -B "$branch" "$start"
g reset -q --hard "$start"
g clean -qfd
echo "head=$(g rev-parse HEAD)"
echo "base=$base"
echo "baseSha=$(g rev-parse --verify -q "refs/remotes/origin/$base" || true)"
echo "work=$WORK"
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
