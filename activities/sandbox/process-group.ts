import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

interface Member {
  pid: number;
  command: string;
}

/** The live (non-zombie) processes of a group, read from /proc. */
function liveMembers(pgid: number): Member[] {
  const members: Member[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid || fields[0] === 'Z') continue;
      members.push({ pid: Number(entry), command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // The process ended while we looked.
    }
  }
  return members;
}

/** Whether the group has any process at all, zombies included (one signal, no look at /proc). */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether any live (non-zombie) process is still in the process group. */
export function groupAlive(pgid: number): boolean {
  // kill(0) also succeeds for a group of zombies awaiting their reaper; look closer.
  return groupExists(pgid) && liveMembers(pgid).length > 0;
}

/**
 * `setsid -f` forks and its child leaves the group a moment later; a command that ends
 * right after starting a job would otherwise have that child reaped in between. Waits
 * (briefly) until no member is still a `setsid` on its way out of the group. A group that is
 * already empty (the usual end of a command) is not looked for in /proc: that look reads every
 * process of the host, and its cost grows with every workspace the host runs.
 */
export async function letDetachersLeave(pgid: number, maxMs = 2_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline && groupExists(pgid) && liveMembers(pgid).some((member) => member.command === 'setsid')) await delay(10);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already empty.
  }
}

/**
 * Ends every process of a group: SIGTERM first so tools can clean up, SIGKILL for what
 * is still there after the grace period.
 */
export async function terminateGroup(pgid: number, graceMs = 2_000): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) {
      signalGroup(pgid, 'SIGKILL');
      break;
    }
    await delay(25);
  }
  const killDeadline = Date.now() + 1_000;
  while (groupAlive(pgid) && Date.now() < killDeadline) await delay(25);
}

/** Kills every process whose environment carries this workspace's marker (the unisolated reaper). */
export function killMarkedProcesses(name: string): number {
  const marker = `SWITCHBOARD_WORKSPACE=${name}`;
  let killed = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(marker)) continue;
      process.kill(Number(entry), 'SIGKILL');
      killed += 1;
    } catch {
      // Gone already, or not ours to read.
    }
  }
  return killed;
}
