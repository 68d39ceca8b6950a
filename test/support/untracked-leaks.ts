import { readdirSync, readFileSync } from 'node:fs';

/**
 * What a test can leave running without the support helpers knowing: child
 * processes spawned directly (`child_process.spawn`) and servers listening in
 * the jest process (an app created with `NestFactory`, a proxy). The tracked
 * leak check (running.ts) sees only what `startTestApp` / `startServiceProcess`
 * started; this one compares the process before and after.
 */

/** Pids of the live child processes of this process (Linux /proc; empty elsewhere). */
export function childPids(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may contain spaces, so split after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === process.pid && state !== 'Z') children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** How many servers listen in this process (TCP and pipe servers, from Node's active resources). */
export function listeningServers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap' || r === 'PipeServerWrap').length;
}

/** The command line of process `pid`, for failure messages. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 200);
  } catch {
    return '?';
  }
}

/**
 * Compares the process with a snapshot taken before: kills (SIGKILL) child
 * processes born since, and returns a message naming what was left, or
 * undefined when nothing was.
 *
 * @param before `childPids()` and `listeningServers()` at the start of the file.
 */
export function stopUntracked(before: { pids: readonly number[]; servers: number }, where: string): string | undefined {
  const known = new Set(before.pids);
  const pids = childPids().filter((pid) => !known.has(pid));
  const problems = pids.map((pid) => `child process ${pid} (${commandLine(pid)})`);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const servers = listeningServers() - before.servers;
  if (servers > 0) problems.push(`${servers} listening server(s) in the jest process (an app or proxy not closed)`);
  if (problems.length === 0) return undefined;
  return `${where} left running: ${problems.join('; ')}. Stop every process and close every server you start (in a finally block or an afterAll hook); prefer the helpers of test/support.`;
}
