// The renderer's style sheets, read as text: colors are stated only in the token sheet (every other sheet uses
// var(--…)), no rule targets a test id (tests' hooks are not styling hooks: style a class name instead), every
// sheet is imported by a .ts / .tsx (Vite bundles only what is imported) and every custom property a sheet reads
// is declared in a sheet or set inline by a component. A violation names the sheet and the offending text.

import { describe, expect, it } from 'vitest';

/** The little of node:fs used here. The renderer's type-check has no Node types (the UI must not use Node), so
 * the module is imported untyped and given this shape. */
interface Fs {
  readdirSync(dir: URL, options: { withFileTypes: true }): { name: string; isDirectory(): boolean }[];
  readFileSync(file: URL, encoding: 'utf8'): string;
}
const fs = (await import('node:fs')) as Fs;
const REPO = new URL('../../', import.meta.url);

/** Files under a repository folder (posix path relative to the repository) whose name passes `keep`. */
function walk(dir: string, keep: (name: string) => boolean): string[] {
  return fs.readdirSync(new URL(`${dir}/`, REPO), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    return e.isDirectory() ? walk(p, keep) : keep(e.name) ? [p] : [];
  });
}
const read = (files: string[]) => new Map(files.map((f) => [f, fs.readFileSync(new URL(f, REPO), 'utf8')]));

/** renderer/src/… path → text. */
const css = read(walk('renderer/src', (n) => n.endsWith('.css')));
const modules = read(walk('renderer/src', (n) => /\.tsx?$/.test(n)));
const TOKENS = 'renderer/src/styles/tokens.css';
const sheets = [...css.keys()].sort();

/** Resolves a relative import against the importing file's folder (posix paths inside the repository). */
function resolve(from: string, spec: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const seg of spec.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.') parts.push(seg);
  }
  return parts.join('/');
}

interface Sheet {
  /** Selectors and at-rule preludes (`@media …`, keyframe selectors). */
  preludes: string[];
  /** Declarations as [property, value]. */
  declarations: [string, string][];
}

/** Splits a sheet into preludes and declarations; comments are dropped. Enough for the sheets written here. */
function readSheet(css: string): Sheet {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, ' ');
  const sheet: Sheet = { preludes: [], declarations: [] };
  let chunk = '';
  for (const ch of text) {
    if (ch === '{') {
      sheet.preludes.push(chunk.trim());
      chunk = '';
    } else if (ch === ';' || ch === '}') {
      const colon = chunk.indexOf(':');
      if (colon > 0) sheet.declarations.push([chunk.slice(0, colon).trim(), chunk.slice(colon + 1).trim()]);
      chunk = '';
    } else {
      chunk += ch;
    }
  }
  return sheet;
}

const COLOR_LITERAL = /#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\(/gi;

/** Color literals (hex, rgb(), hsl(), …) in a sheet's declarations. */
function colorLiterals(css: string): string[] {
  return readSheet(css).declarations.flatMap(([p, v]) => (v.match(COLOR_LITERAL) ?? []).map(() => `${p}: ${v}`));
}

/** Selectors that match on a data-testid attribute. */
function testIdSelectors(css: string): string[] {
  return readSheet(css).preludes.filter((s) => /\[\s*data-testid/i.test(s));
}

/** The custom properties a sheet reads with var(--…). */
function varsRead(css: string): string[] {
  return [...css.replace(/\/\*[\s\S]*?\*\//g, ' ').matchAll(/var\(\s*(--[\w-]+)/g)].map((m) => m[1]!);
}

/** The .css files a .ts / .tsx imports, resolved against its folder. */
function cssImports(file: string, source: string): string[] {
  const found = [...source.matchAll(/^\s*import\s+(?:[^'"]*?\s+from\s+)?['"]([^'"]+\.css)(?:\?[^'"]*)?['"]/gm)];
  return found.map((m) => resolve(file, m[1]!));
}

describe('the checks themselves', () => {
  it('find color literals in declarations, not in selectors or comments', () => {
    expect(colorLiterals('#root .a { color: #fff; background: rgba(0, 0, 0, 0.1) } /* #abc */')).toEqual(['color: #fff', 'background: rgba(0, 0, 0, 0.1)']);
    expect(colorLiterals('@media (max-width: 900px) { .a { box-shadow: 0 1px 2px hsl(0 0% 0% / 0.2); } }')).toHaveLength(1);
    expect(colorLiterals('.a { color: var(--text); border: 1px solid transparent; }')).toEqual([]);
  });

  it('find selectors on test ids, also inside a media query', () => {
    expect(testIdSelectors('form[data-testid=\'x\'] { gap: 1px } @media print { [data-testid="y"] .z { color: var(--a) } }')).toEqual([
      "form[data-testid='x']",
      '[data-testid="y"] .z',
    ]);
    expect(testIdSelectors('.settings-form { gap: 1px }')).toEqual([]);
  });

  it('resolve the CSS imports of a module', () => {
    expect(cssImports('renderer/src/views/X.tsx', "import { a } from './a.ts';\nimport './X.css';\nimport '../styles/base.css';")).toEqual([
      'renderer/src/views/X.css',
      'renderer/src/styles/base.css',
    ]);
  });
});

describe('the renderer style sheets', () => {
  it('has a token sheet and sheets beside the views', () => {
    expect(sheets).toContain(TOKENS);
    expect(sheets.length).toBeGreaterThan(5);
  });

  it('states colors only in the token sheet', () => {
    const found = sheets.filter((f) => f !== TOKENS).flatMap((f) => colorLiterals(css.get(f)!).map((d) => `${f}: ${d}`));
    expect(found, 'use a var(--…) from styles/tokens.css').toEqual([]);
  });

  it('keeps the token sheet to custom properties on :root', () => {
    const sheet = readSheet(css.get(TOKENS)!);
    expect(sheet.preludes).toEqual([':root']);
    expect(sheet.declarations.filter(([p]) => !p.startsWith('--')).map(([p, v]) => `${p}: ${v}`)).toEqual([]);
  });

  it('styles no test id', () => {
    const found = sheets.flatMap((f) => testIdSelectors(css.get(f)!).map((s) => `${f}: ${s}`));
    expect(found, 'give the element a class name and style that').toEqual([]);
  });

  it('imports every sheet from a .ts / .tsx, and every imported sheet exists', () => {
    const imported = new Set<string>();
    const missing: string[] = [];
    for (const [m, source] of modules) {
      for (const target of cssImports(m, source)) {
        imported.add(target);
        if (!css.has(target)) missing.push(`${m} imports ${target}`);
      }
    }
    const unimported = sheets.filter((f) => !imported.has(f));
    expect(unimported, 'sheets no module imports').toEqual([]);
    expect(missing).toEqual([]);
  });

  it('reads only custom properties that a sheet declares or a component sets inline', () => {
    const declared = new Set<string>();
    for (const text of css.values()) for (const [p] of readSheet(text).declarations) if (p.startsWith('--')) declared.add(p);
    for (const source of modules.values()) for (const [, name] of source.matchAll(/['"](--[\w-]+)['"]\s*:/g)) declared.add(name!);
    const unknown = sheets.flatMap((f) =>
      varsRead(css.get(f)!)
        .filter((n) => !declared.has(n))
        .map((n) => `${f}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });
});
