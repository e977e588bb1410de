#!/usr/bin/env node
// The `opencoder` command. It runs from a precompiled bundle of the engine, built on first use and rebuilt when a
// source file's content changes (cli-bundle.js); where that build fails it says so and runs the TypeScript
// sources through tsx.
import { loadCliMain } from './cli-bundle.js';

// A closed pipe (`opencoder status | head`) is not an error worth a stack trace.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
const main = await loadCliMain();
process.exitCode = await main(process.argv.slice(2));
