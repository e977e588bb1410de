// Builds the `opencoder` command line's bundle (bin/cli-build.ts), or with --if-stale only when it is missing or stale.
//
// Usage: node bin/run-ts.js scripts/build-cli.ts [--if-stale]   (npm run build:cli)

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildCli, ensureCliBundle } from '../bin/cli-build.ts';

const isMain = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  try {
    const r = process.argv.includes('--if-stale') ? await ensureCliBundle() : await buildCli();
    console.log(
      `${r.built ? 'built' : 'up to date:'} ${path.relative(process.cwd(), path.dirname(r.entry)) || path.dirname(r.entry)}${r.built ? ` (${r.inputs} inputs)` : ''}`,
    );
  } catch (err) {
    console.error(`build-cli: ${err instanceof Error ? err.message : err}`);
    process.exitCode = 1;
  }
}
