// The benchmark corpus: a copy of the machine's Python standard library (never the original: the
// one-file benchmark edits a file). site-packages and caches are left out, as the walker would.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function stdlibPath(): string {
  const python = process.env.OPENCODER_BENCH_PYTHON ?? 'python3';
  return execFileSync(python, ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
}

export function copyStdlib(): { root: string; source: string; cleanup: () => void } {
  const source = stdlibPath();
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-bench-'));
  const root = path.join(parent, 'stdlib');
  fs.cpSync(source, root, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => {
      const base = path.basename(src);
      return base !== 'site-packages' && base !== '__pycache__';
    },
  });
  return { root, source, cleanup: () => fs.rmSync(parent, { recursive: true, force: true }) };
}
