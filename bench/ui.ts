// The UI's JavaScript as a new window loads it: builds the renderer (renderer/vite.config.ts, into dist/renderer) and
// sums the bytes of the scripts index.html loads up front, beside those of the lazily loaded parts (the charts and
// the views other than Repository and Reports, listed in the main script's data-lazy-chunks). kB = 1000 bytes;
// the stylesheet is not counted. The split works from file:// as well as http:// (classic scripts only).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchUiConnect } from './ui-connect.ts';

type Record = (what: string, value: string, baseline: string, ratio: string, target?: string) => void;
type Put = (name: string, value: number) => void;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist', 'renderer');
const TARGET_KB = 500;

export interface RendererScripts {
  /** The scripts index.html loads (paths inside the build). */
  initial: string[];
  /** Per lazy part, the scripts it adds to the page (paths inside the build). */
  lazy: { [part: string]: string[] };
}

/** The scripts of a renderer build in `dir`, read from its index.html. */
export function rendererScripts(dir: string): RendererScripts {
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const tags = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  const initial = tags.map((t) => {
    const src = /\bsrc="\.\/([^"]+)"/.exec(t)?.[1];
    if (!src) throw new Error(`${dir}/index.html: a script without a relative src: ${t}`);
    return src;
  });
  const main = tags.find((t) => t.includes('data-lazy-chunks='));
  if (!main) throw new Error(`${dir}/index.html: no script carries data-lazy-chunks (the build is not split)`);
  const mainSrc = /\bsrc="\.\/([^"]+)"/.exec(main)![1]!;
  const parts = JSON.parse(/data-lazy-chunks='([^']+)'/.exec(main)![1]!) as { [part: string]: string[] };
  const lazy: RendererScripts['lazy'] = {};
  for (const [part, files] of Object.entries(parts)) lazy[part] = files.map((f) => path.posix.join(path.posix.dirname(mainSrc), f));
  return { initial, lazy };
}

const kb = (bytes: number) => bytes / 1000;
const bytesOf = (dir: string, files: Iterable<string>) => [...new Set(files)].reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);

/** A production build of the renderer into `outDir` (under a test runner too, where NODE_ENV is "test"). */
export async function buildRenderer(outDir: string): Promise<void> {
  const vite = await import('vite');
  // Vite builds with NODE_ENV's React when NODE_ENV is set (the development one under a test runner).
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await vite.build({ configFile: path.join(ROOT, 'renderer', 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

export async function benchUi(record: Record, put: Put): Promise<void> {
  await buildRenderer(OUT);
  const { initial, lazy } = rendererScripts(OUT);
  const initialBytes = bytesOf(OUT, initial);
  const lazyFiles = new Set(Object.values(lazy).flat());
  const lazyBytes = bytesOf(OUT, lazyFiles);
  const total = initialBytes + lazyBytes;
  const perPart = Object.entries(lazy)
    .map(([part, files]) => `${part} ${kb(bytesOf(OUT, files)).toFixed(0)}`)
    .join(', ');
  record(
    'UI initial JS (scripts index.html loads)',
    `${kb(initialBytes).toFixed(1)} kB in ${initial.length} classic script${initial.length === 1 ? '' : 's'}, minified, not gzipped, CSS not counted`,
    `all the UI's JS ${kb(total).toFixed(1)} kB (998 kB in one bundle before the split, 951 kB when issue 18 was filed)`,
    `${(initialBytes / total).toFixed(2)}× all JS; ${(kb(initialBytes) / TARGET_KB).toFixed(2)}× the target`,
    `≤ ${TARGET_KB} kB`,
  );
  record(
    'UI lazily loaded JS (loaded when a part is first shown)',
    `${kb(lazyBytes).toFixed(1)} kB in ${lazyFiles.size} scripts; per part, with what parts share: ${perPart} kB`,
    `initial ${kb(initialBytes).toFixed(1)} kB`,
    `${(lazyBytes / initialBytes).toFixed(2)}× initial`,
  );
  put('ui.initialJsKb', Math.round(kb(initialBytes) * 10) / 10);
  put('ui.lazyJsKb', Math.round(kb(lazyBytes) * 10) / 10);
  await benchUiConnect(record, put, OUT);
}
