import { readdirSync, readFileSync } from 'node:fs';

/**
 * SIGKILLs every process whose command line mentions `text` (a test's temp dir): a SIGKILLed
 * worker leaves its sandbox holders (and the commands in them) behind.
 */
export function killProcessesMentioning(text: string): void {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let commandLine = '';
    try {
      commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!commandLine.includes(text)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
