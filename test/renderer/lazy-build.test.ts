// The renderer build keeps the first screen small: index.html loads classic scripts only (no module script, no
// crossorigin: they would not load from file://), those scripts total at most 500 kB, and none of them holds the
// charts (recharts, d3) or a view that a module in renderer/src/lazy/chunks/ names as a lazy part; every part has its files,
// and the charts' chunk holds recharts. Reads the build's source maps to see which modules each script carries.

import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../validate/helpers.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { buildRenderer, rendererScripts } from '../../bench/ui.ts';

const INITIAL_LIMIT = 500_000;
const CHUNKS = path.join(REPO_ROOT, 'renderer', 'src', 'lazy', 'chunks');

let out: string;
let html: string;

/** The sources (module paths) a built script's source map names; none when it has no map (a chunk of re-exports only). */
function sourcesOf(file: string): string[] {
  if (!fs.existsSync(`${file}.map`)) return [];
  const map = JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
  return map.sources.map((s) => path.resolve(path.dirname(file), s));
}

/** The lazy parts lazy/chunks/<name>.ts declare: name → the module's absolute path. */
function declaredParts(): Map<string, string> {
  const parts = new Map<string, string>();
  for (const file of fs.readdirSync(CHUNKS))
    for (const m of fs.readFileSync(path.join(CHUNKS, file), 'utf8').matchAll(/^import \* as part from '([^']+)';$/gm))
      parts.set(path.basename(file, '.ts'), path.resolve(CHUNKS, m[1]!));
  return parts;
}

beforeAll(async () => {
  out = tmpDir('oc-renderer-build-');
  await buildRenderer(out);
  html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
});

describe('renderer build: the first screen without the charts', () => {
  it('loads only classic scripts and a plain stylesheet from index.html', () => {
    expect(html).not.toMatch(/type="module"|crossorigin|modulepreload/);
    expect([...html.matchAll(/<script\b[^>]*>/g)].every((m) => /\bdefer\b/.test(m[0]) && /\bsrc="\.\//.test(m[0]))).toBe(true);
  });

  it('keeps the initial scripts within 500 kB, with neither recharts, d3 nor a lazy part in them', () => {
    const initial = rendererScripts(out).initial.map((f) => path.join(out, f));
    expect(initial.length).toBeGreaterThan(0);
    const bytes = initial.reduce((n, f) => n + fs.statSync(f).size, 0);
    expect(bytes).toBeLessThanOrEqual(INITIAL_LIMIT);
    const sources = initial.flatMap(sourcesOf);
    expect(sources.some((s) => s.endsWith(path.join('renderer', 'src', 'main.tsx')))).toBe(true);
    expect(sources.filter((s) => /node_modules[\\/](recharts|d3-[a-z-]+|victory-vendor)[\\/]/.test(s))).toEqual([]);
    const parts = declaredParts();
    expect([...parts.keys()]).toEqual(expect.arrayContaining(['charts', 'task', 'experiment']));
    const chartModules = [path.join(REPO_ROOT, 'renderer', 'src', 'views', 'experiment', 'Charts.tsx')];
    expect(sources.filter((s) => [...parts.values(), ...chartModules].includes(s))).toEqual([]);
  });

  it('lists every lazy part with files that exist, the charts part carrying recharts', () => {
    const lazy = rendererScripts(out).lazy;
    expect(Object.keys(lazy).sort()).toEqual([...declaredParts().keys()].sort());
    for (const files of Object.values(lazy)) for (const f of files) expect(fs.existsSync(path.join(out, f))).toBe(true);
    const chartSources = lazy.charts!.flatMap((f) => sourcesOf(path.join(out, f)));
    expect(chartSources.some((s) => /node_modules[\\/]recharts[\\/]/.test(s))).toBe(true);
    // Only the charts part brings recharts: the views that show charts load them when they show them.
    for (const [name, files] of Object.entries(lazy)) {
      if (name === 'charts') continue;
      const sources = files.flatMap((f) => sourcesOf(path.join(out, f)));
      expect(sources.filter((s) => /node_modules[\\/]recharts[\\/]/.test(s))).toEqual([]);
    }
    // React lives in the main bundle only: a second copy in a lazy chunk would break hooks.
    expect(chartSources.filter((s) => /node_modules[\\/](react|react-dom)[\\/]/.test(s))).toEqual([]);
  });
});
