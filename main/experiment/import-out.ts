// What every importer does with its output folder, and how it words a requirement it has to make up.
// An import writes only into an empty folder or into one a previous import of the same kind made (marked by
// IMPORT_MARKER), and clears only what that importer writes.

import fs from 'node:fs';
import path from 'node:path';

export const IMPORT_MARKER = '.opencoder-import.json';

interface Marker {
  tool: 'opencoder';
  importer: string;
  format: 1;
}

/** Builds the importer's own error type (it names the file). */
export type Fail = (message: string, file: string) => Error;

/** Throws unless `outDir` is absent, empty, or a previous import by `importer`. True when it is one. */
export function checkOutDir(outDir: string, importer: string, fail: Fail): boolean {
  if (!fs.existsSync(outDir)) return false;
  if (!fs.statSync(outDir).isDirectory()) throw fail(`--out ${outDir} exists and is not a folder`, outDir);
  if (!fs.readdirSync(outDir).length) return false;
  let marker: Partial<Marker> | null = null;
  try {
    marker = JSON.parse(fs.readFileSync(path.join(outDir, IMPORT_MARKER), 'utf8')) as Partial<Marker>;
  } catch {
    marker = null;
  }
  if (!marker || marker.tool !== 'opencoder' || marker.importer !== importer) {
    throw fail(
      `Refusing to write into ${outDir}: it is not empty and was not made by \`opencoder import ${importer}\` (no ${IMPORT_MARKER} of it). Choose an empty or new folder.`,
      outDir,
    );
  }
  return true;
}

/** Makes `outDir` ready (clearing only what a previous import of the same kind wrote: `written`) and marks it. */
export function prepareOutDir(outDir: string, importer: string, written: string[], fail: Fail): void {
  if (checkOutDir(outDir, importer, fail)) {
    for (const name of written) fs.rmSync(path.join(outDir, name), { recursive: true, force: true });
  }
  fs.mkdirSync(outDir, { recursive: true });
  const marker: Marker = { tool: 'opencoder', importer, format: 1 };
  fs.writeFileSync(path.join(outDir, IMPORT_MARKER), JSON.stringify(marker, null, 1) + '\n');
}

/** When a task has no docstring: a plain sentence from the signature. */
export function requirementFromSignature(signature: string): string {
  const one = signature
    .split('\n')
    .filter((l) => !l.trim().startsWith('@'))
    .join(' ')
    .replace(/\s+/g, ' ')
    .replace(/^\s*(async\s+)?def\s+/, '')
    .replace(/:\s*$/, '')
    .trim();
  return `Implement \`${one}\`.`;
}
