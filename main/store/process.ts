// Whether the process a stored run names still runs: a run left `running` by a process that died (kill -9, a
// crash, a power cut) is shown as interrupted instead of running forever.

import os from 'node:os';

export function processAlive(pid: number | null, host: string | null): boolean {
  // Another machine's process cannot be checked from here: it is taken to be running.
  if (host !== null && host !== os.hostname()) return true;
  if (pid === null) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
