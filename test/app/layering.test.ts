// The layering rule (ARCHITECTURE.md): app/ is the only folder that imports electron — the engine (main/) runs
// in plain Node too, the UI (renderer/) in a plain browser too, and contract is shared by both.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage', 'artifacts', 'results', 'models', '.opencoder']);
const SOURCE = /\.(?:[cm]?[jt]sx?)$/;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') && e.name !== '.') continue;
    if (SKIP.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (SOURCE.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

// Built from parts so this file does not match itself.
const NAME = ['elec', 'tron'].join('');
const Q = `['"\`]`;
const SPEC = `${Q}${NAME}(?:/[^'"\`]*)?${Q}`;
const IMPORTS = [
  new RegExp(`\\bfrom\\s*${SPEC}`), // import … from / export … from
  new RegExp(`\\bimport\\s*${SPEC}`), // side-effect import
  new RegExp(`\\b(?:import|require)\\s*\\(\\s*${SPEC}\\s*\\)`), // dynamic import, require
];

const rel = (p: string) => path.relative(ROOT, p).split(path.sep).join('/');
const importers = sources(ROOT)
  .filter((f) => {
    const text = fs.readFileSync(f, 'utf8');
    return IMPORTS.some((re) => re.test(text));
  })
  .map(rel)
  .sort();

describe('layering: who imports electron', () => {
  it('the scanner sees the shell importing it', () => {
    expect(importers).toContain('app/main.ts');
    expect(importers).toContain('app/preload.ts');
  });

  it('nothing under main/ or renderer/ imports electron', () => {
    expect(importers.filter((f) => f.startsWith('main/') || f.startsWith('renderer/'))).toEqual([]);
  });

  it('only app/ files import it (the shared contract/ does not)', () => {
    expect(importers.filter((f) => !f.startsWith('app/') || f.startsWith('contract/'))).toEqual([]);
  });

  it('the engine side of the shell does not import it either (it runs in a utility process and in tests)', () => {
    const engineSide = [
      'app/engine-process.ts',
      'app/engine-host.ts',
      'app/engine-protocol.ts',
      'app/ipc-bridge.ts',
      'app/engine-supervisor.ts',
      'app/keychain.ts',
      'app/app-protocol.ts',
      'app/layout.ts',
    ];
    expect(importers.filter((f) => engineSide.includes(f))).toEqual([]);
  });
});
