#!/usr/bin/env node
// The `opencoder` command. The engine is TypeScript; tsx compiles it on load.
import { register } from 'tsx/esm/api';

register();
// A closed pipe (`opencoder status | head`) is not an error worth a stack trace.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
const { main } = await import('../main/host/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
