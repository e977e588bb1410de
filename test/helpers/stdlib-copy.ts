// CPython's own standard library copied as a repository, with CPython's own unittest suites as its tests
// (test/validate/stdlib*.test.ts).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const SKIP_DIRS = new Set([
  'site-packages',
  'dist-packages',
  '__pycache__',
  'idlelib',
  'tkinter',
  'turtledemo',
  'lib2to3',
  'ensurepip',
  'pydoc_data',
  'lib-dynload',
  'tests',
  'test',
]);

/**
 * A copy of the standard library's Python files as a repository, with `test/__init__.py`, what the suites import
 * (`support`) and the test modules or packages in `testParts` (names under `test/`, copied with their data).
 */
export function copyStdlib(stdlib: string, dest: string, testParts: string[]): void {
  const walk = (rel: string) => {
    for (const ent of fs.readdirSync(path.join(stdlib, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${ent.name}` : ent.name;
      if (ent.isDirectory()) {
        if (SKIP_DIRS.has(ent.name) || ent.name.startsWith('config-')) continue;
        walk(r);
      } else if (ent.isFile() && ent.name.endsWith('.py')) {
        fs.mkdirSync(path.join(dest, rel), { recursive: true });
        fs.copyFileSync(path.join(stdlib, r), path.join(dest, r));
      }
    }
  };
  walk('');
  for (const part of ['__init__.py', 'support', ...testParts]) {
    const src = path.join(stdlib, 'test', part);
    if (fs.existsSync(src)) fs.cpSync(src, path.join(dest, 'test', part), { recursive: true, filter: (s) => !s.includes('__pycache__') });
  }
}

/** The source of `qualname` in `file`, found with Python's ast (the reference). */
export function sourceOf(python: string, file: string, qualname: string): string {
  const code = [
    'import ast, sys',
    'src = open(sys.argv[1], encoding="utf-8").read()',
    'node = ast.parse(src)',
    'for part in sys.argv[2].split("."):',
    '    node = next(n for n in node.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == part)',
    'lines = src.split("\\n")[node.lineno - 1 - len(node.decorator_list): node.end_lineno]',
    'ind = len(lines[0]) - len(lines[0].lstrip())',
    'print("\\n".join(l[ind:] for l in lines))',
  ].join('\n');
  const r = spawnSync(python, ['-I', '-c', code, file, qualname], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** The reference's def line(s) with a body that only raises. */
export function stub(reference: string): string {
  const lines = reference.split('\n');
  const end = lines.findIndex((l) => /\)\s*(->[^:]*)?:\s*$/.test(l));
  return `${lines.slice(0, end + 1).join('\n')}\n    raise NotImplementedError\n`;
}
