// Writing a file so that a reader sees the old or the new content, never half of it: one writer for the engine and
// the `opencoder` launcher. Plain JavaScript because the launcher (bin/cli-layout.js) uses it before anything can
// compile TypeScript.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes `file` through a temporary sibling and a rename (its folder is made when missing). `mode` applies to a
 * new file (0o600 for a file only its owner may read). A failed rename removes the temporary file.
 */
export function writeAtomic(file, text, mode) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, text, mode === undefined ? undefined : { mode });
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
