// `node --import ./module-trace.mjs …`: appends the URL of every module the ESM loader resolves to the file named
// by MODULE_TRACE_FILE (the hooks run in their own thread, module-trace-hooks.mjs). Used by cli-bundle.test.ts to
// see what `opencoder --help` loads.
import { register } from 'node:module';

register('./module-trace-hooks.mjs', import.meta.url, { data: { file: process.env.MODULE_TRACE_FILE } });
