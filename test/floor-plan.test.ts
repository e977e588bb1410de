// What the floor plan asks beyond who may import whom (that table is FLOOR_PLAN in eslint.config.js, checked by
// its floor-plan rule): SQL only in main/store, one base for the engine's errors, model and stats free of engine
// code, and the engine's library setting. A violation names the file.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'main');

/** Every module a file names (import and export declarations, side-effect and dynamic imports), parsed, not matched. */
function importsOf(file: string): string[] {
  const src = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      out.push(n.moduleSpecifier.text);
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) {
      out.push(n.arguments[0].text);
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

describe('floor plan', () => {
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

  // Which of our folders they may import (stats: model's types only) is in the floor plan.
  it('model and stats hold no engine code: model imports only zod, stats only @stdlib', () => {
    for (const [folder, allowed] of [
      ['model', /^(zod)$/],
      ['stats', /^@stdlib\//],
    ] as const) {
      for (const f of fs.readdirSync(path.join(MAIN, folder))) {
        for (const spec of importsOf(path.join(MAIN, folder, f)).filter((s) => !s.startsWith('.')))
          expect(spec, `main/${folder}/${f} imports ${spec}`).toMatch(allowed);
      }
    }
  });
});

// The two tsc runs are `npm run check`'s (npm run typecheck); this keeps the engine's setting that they rely on.
describe('types', () => {
  it('the engine, app, tests and scripts are checked without the DOM library (the renderer has its own tsconfig with it)', () => {
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions.lib).toEqual(['ES2023']);
  });
});
