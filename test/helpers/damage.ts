// Damaging a database file the way a failing disk would: whole pages overwritten with garbage (store fault tests).

import fs from 'node:fs';

/** SQLite's page size for OpenCoder's databases (the default). */
export const PAGE = 4096;

/** Overwrites these pages (numbered from 1, as SQLite numbers them) of `file` with garbage. */
export function scribble(file: string, pages: number[]): void {
  const fd = fs.openSync(file, 'r+');
  try {
    for (const p of pages) fs.writeSync(fd, Buffer.alloc(PAGE, 0x5a), 0, PAGE, (p - 1) * PAGE);
  } finally {
    fs.closeSync(fd);
  }
}
