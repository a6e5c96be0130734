/**
 * A repository's setup as shell text (pure): the script a run's checkout runs before its first
 * turn (workflows/run/repo-context.ts), and the probe a worker host runs first to find its key
 * (activities/sandbox/repo-cache/setup-store.ts). One key formula for both.
 */

/** What the setup script prints first when its marker says this workspace did it before. */
export const SETUP_CACHED = 'switchboard-setup: done before';
/** What a worker host answers when it copied in the results of an earlier setup with the same key. */
export const SETUP_RESTORED = 'switchboard-setup: restored from this host';
/** What the setup script prints when it runs the commands. */
export const SETUP_RUNNING = 'switchboard-setup: running';

/** Where a workspace notes the setups it has done (its own home, kept with its files). */
export const SETUP_MARKERS = '$HOME/.switchboard/setup';

/** Single-quoted for sh: nothing inside is expanded. */
export function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `key=…`: a hash of the commands and of each named lockfile's contents (run in the checkout). */
export function setupKeyLine(commands: readonly string[], lockfiles: readonly string[]): string {
  const hashed = [
    `printf '%s\\n' ${shellQuoted(commands.join('\n'))}`,
    ...lockfiles.map(
      (file) =>
        `if [ -f ${shellQuoted(file)} ]; then printf '%s ' ${shellQuoted(file)}; sha256sum < ${shellQuoted(file)}; else printf '%s missing\\n' ${shellQuoted(file)}; fi`,
    ),
  ];
  return `key=$( { ${hashed.join('; ')}; } | sha256sum | cut -c1-32 )`;
}

/**
 * The setup as one shell script in the checkout. A marker under `$HOME/.switchboard/setup/<key>`
 * says this workspace ran exactly this setup to success before, and then nothing runs. Each
 * command runs in order and the first failure ends it (`set -e`).
 */
export function setupScript(commands: readonly string[], lockfiles: readonly string[]): string {
  return [
    setupKeyLine(commands, lockfiles),
    `marker="${SETUP_MARKERS}/$key"`,
    `if [ -f "$marker" ]; then echo "${SETUP_CACHED} ($key)"; exit 0; fi`,
    `echo "${SETUP_RUNNING} ($key)"`,
    `( set -e\n${commands.join('\n')}\n)`,
    'code=$?',
    `if [ "$code" -eq 0 ]; then mkdir -p "${SETUP_MARKERS}" && date -u +%FT%TZ > "$marker"; fi`,
    'exit "$code"',
  ].join('\n');
}

/** Prints `key=<key>` and `marker=1|0` (whether this workspace did this setup before). */
export function setupProbeScript(commands: readonly string[], lockfiles: readonly string[]): string {
  return [
    setupKeyLine(commands, lockfiles),
    'echo "key=$key"',
    `if [ -f "${SETUP_MARKERS}/$key" ]; then echo marker=1; else echo marker=0; fi`,
  ].join('\n');
}
