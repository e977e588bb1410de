// The `opencoder` command runs from a precompiled bundle of the engine (cli-build.ts builds it) instead of compiling
// TypeScript on every start. This file, plain JavaScript so it loads at once, finds that bundle (cli-layout.js says
// where it lives and whether it is current) and builds it when it is missing or stale. Builds are atomic (a
// temporary folder renamed into place, then cli.json replaced by a rename), so processes starting in parallel never
// see half a bundle.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildBase, findBundle, PACKAGE_ROOT } from './cli-layout.js';

/**
 * The CLI's `main`: from the current bundle, else from a new build of it, else (the build failed: said on stderr
 * in one line) from the TypeScript sources through tsx, as a checkout without a build runs.
 */
export async function loadCliMain(root = PACKAGE_ROOT, env = process.env) {
  const found = findBundle(root, env);
  if (found.entry) return (await import(pathToFileURL(found.entry).href)).main;
  const { register } = await import('tsx/esm/api');
  const unregister = register();
  const base = buildBase(root, env);
  let entry;
  try {
    if (process.stderr.isTTY) process.stderr.write(`opencoder: compiling the command line into ${path.join(base, 'dist')} (${found.reasons[0]})…\n`);
    const { buildCli } = await import('./cli-build.ts');
    entry = (await buildCli({ root, base })).entry;
  } catch (err) {
    const why = String(err?.message ?? err).split('\n')[0];
    process.stderr.write(
      `opencoder: could not build the CLI bundle in ${path.join(base, 'dist')} (${why}); running from the TypeScript sources through tsx instead (slower start)\n`,
    );
    return (await import('../main/host/cli/main.ts')).main;
  }
  await unregister();
  return (await import(pathToFileURL(entry).href)).main;
}
