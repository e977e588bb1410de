// The engine's floor plan: which main/* folder may import which. Data flows one way: plain types (model) and
// the statistics maths (stats) at the bottom, storage above them, the stages (embed, index, retrieve,
// generate, validate) above storage, then the pipeline, experiments, and the host on top. A violation
// names the file and the import.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'main');

/** Allowed imports between main/* folders (besides a folder's own files and npm packages). */
const MAY_IMPORT: Record<string, string[]> = {
  model: [],
  // stats: only the plain result shapes of model/estimates.ts, as types (checked below).
  stats: ['model'],
  util: ['model'],
  store: ['model', 'util'],
  embed: ['model', 'util'],
  index: ['model', 'store', 'util', 'embed'],
  validate: ['model', 'util'],
  retrieve: ['model', 'stats', 'store', 'index', 'embed', 'util'],
  generate: ['model', 'stats', 'store', 'retrieve', 'embed', 'util'],
  benchmarks: ['model', 'stats', 'index', 'validate', 'util'],
  pipeline: ['model', 'stats', 'store', 'index', 'embed', 'retrieve', 'generate', 'validate', 'util'],
  experiment: ['model', 'stats', 'store', 'index', 'embed', 'retrieve', 'generate', 'validate', 'benchmarks', 'pipeline', 'util'],
  host: ['model', 'stats', 'store', 'index', 'embed', 'retrieve', 'generate', 'validate', 'benchmarks', 'pipeline', 'experiment', 'util', 'contract'],
};
/** Non-code folders any folder may read (the shipped data files). */
const DATA = new Set(['resources']);

/** Every module a file names (import and export declarations, side-effect and dynamic imports), parsed, not matched. */
function importsOf(file: string): { spec: string; typeOnly: boolean }[] {
  const src = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: { spec: string; typeOnly: boolean }[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      const typeOnly = ts.isImportDeclaration(n) ? !!n.importClause?.isTypeOnly : n.isTypeOnly;
      out.push({ spec: n.moduleSpecifier.text, typeOnly });
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) {
      out.push({ spec: n.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

interface Edge {
  from: string;
  to: string;
  file: string;
  spec: string;
}

function edges(): Edge[] {
  const out: Edge[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name)) {
        const from = path.relative(MAIN, p).split(path.sep)[0]!;
        for (const { spec } of importsOf(p).filter((i) => i.spec.startsWith('.'))) {
          const target = path.resolve(path.dirname(p), spec);
          const rel = path.relative(ROOT, target).split(path.sep);
          const to = rel[0] === 'main' ? rel[1]! : rel[0]!;
          if (to !== from) out.push({ from, to, file: path.relative(ROOT, p), spec });
        }
      }
    }
  };
  walk(MAIN);
  return out;
}

describe('floor plan', () => {
  it('every import between main/* folders is one the table allows', () => {
    const folders = fs
      .readdirSync(MAIN, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    for (const f of folders) expect(MAY_IMPORT[f], `main/${f} is not in the floor plan's table`).toBeDefined();
    const violations = edges()
      .filter((e) => !DATA.has(e.to) && !(MAY_IMPORT[e.from] ?? []).includes(e.to))
      .map((e) => `${e.from} may not import ${e.to} (${e.file}: '${e.spec}')`);
    expect(violations).toEqual([]);
  });

  it('SQL runs only in main/store: nothing else prepares a statement or reaches for the database handle', () => {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (path.relative(MAIN, p) !== 'store') walk(p);
        } else if (/\.tsx?$/.test(e.name)) {
          // Over the whole text: a statement may start on the line after `.prepare(`.
          const text = fs.readFileSync(p, 'utf8');
          for (const m of text.matchAll(/\.prepare\(\s*[`'"]|\bstore\.db\b/g)) {
            const line = text.slice(0, m.index).split('\n').length;
            found.push(`${path.relative(ROOT, p)}:${line}: ${text.split('\n')[line - 1]!.trim()}`);
          }
        }
      }
    };
    walk(MAIN);
    expect(found).toEqual([]);
  });

  it('every error class of the engine extends the one base (model/errors.ts) whose code the contract carries', () => {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name) && path.relative(MAIN, p) !== path.join('model', 'errors.ts')) {
          for (const m of fs.readFileSync(p, 'utf8').matchAll(/class (\w+) extends (?:Error|TypeError|RangeError)\b/g))
            found.push(`${path.relative(ROOT, p)}: ${m[1]}`);
        }
      }
    };
    walk(MAIN);
    expect(found).toEqual([]);
  });

  it('the table itself has no cycle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const visit = (f: string, trail: string[]): void => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') throw new Error(`cycle: ${[...trail, f].join(' → ')}`);
      state.set(f, 'open');
      for (const g of MAY_IMPORT[f] ?? []) if (g in MAY_IMPORT) visit(g, [...trail, f]);
      state.set(f, 'done');
    };
    for (const f of Object.keys(MAY_IMPORT)) visit(f, []);
  });

  it("model and stats hold no engine code: model imports only zod, stats only @stdlib and model's types", () => {
    for (const [folder, allowed] of [
      ['model', /^(zod)$/],
      ['stats', /^@stdlib\//],
    ] as const) {
      for (const f of fs.readdirSync(path.join(MAIN, folder))) {
        const imports = importsOf(path.join(MAIN, folder, f));
        for (const { spec } of imports.filter((i) => !i.spec.startsWith('.'))) expect(spec, `main/${folder}/${f} imports ${spec}`).toMatch(allowed);
        if (folder === 'stats') {
          for (const i of imports.filter((i) => i.spec.startsWith('../model/')))
            expect(i.typeOnly, `main/stats/${f}: '${i.spec}' must be a type-only import`).toBe(true);
        }
      }
    }
  });

  it('the contract imports only main/model, and the renderer reaches nothing in main/ except main/model', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const { spec } of importsOf(file).filter((i) => i.spec.startsWith('.'))) {
        const target = path.resolve(path.dirname(file), spec);
        if (/\.tsx?$/.test(target) && fs.existsSync(target)) visit(target);
      }
    };
    visit(path.join(ROOT, 'renderer', 'src', 'main.tsx'));
    const reached = [...seen].map((f) => path.relative(ROOT, f).split(path.sep).join('/'));
    expect(reached).toContain('contract/index.ts');
    expect(reached.filter((f) => !f.startsWith('renderer/') && !f.startsWith('contract/') && !f.startsWith('main/model/'))).toEqual([]);
    const contract = fs.readdirSync(path.join(ROOT, 'contract')).flatMap((f) =>
      importsOf(path.join(ROOT, 'contract', f))
        .filter((i) => i.spec.startsWith('.'))
        .map((i) =>
          path
            .relative(ROOT, path.resolve(ROOT, 'contract', i.spec))
            .split(path.sep)
            .join('/'),
        ),
    );
    expect(contract.filter((t) => !t.startsWith('main/model/') && !t.startsWith('contract/'))).toEqual([]);
  });
});

describe('types', () => {
  it('the engine, app, tests and scripts type-check without the DOM library; the renderer with it', async () => {
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    // The two projects are checked at once (one core each); each failure names its project.
    const check = async (project: string) => {
      try {
        await execFileAsync(process.execPath, [tsc, '--noEmit', '-p', project], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
        return null;
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string };
        return `tsc -p ${project} failed:\n${(e.stdout ?? '') + (e.stderr ?? '')}`;
      }
    };
    const failures = (await Promise.all(['tsconfig.json', 'renderer/tsconfig.json'].map(check))).filter((f) => f !== null);
    if (failures.length) throw new Error(failures.join('\n'));
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions.lib).toEqual(['ES2023']);
  }, 300_000);
});
