#!/usr/bin/env node
// The `opencoder` command. The engine is TypeScript; tsx compiles it on load.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../main/host/cli.ts');
process.exitCode = await main(process.argv.slice(2));
