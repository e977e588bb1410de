// Loader hooks of module-trace.mjs: every resolved module URL, one a line.
import fs from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (file) fs.appendFileSync(file, `${r.url}\n`);
  return r;
}
