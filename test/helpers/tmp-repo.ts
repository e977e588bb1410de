// Temporary repositories for tests: a map of relative path → content becomes a folder.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function makeRepo(files: Record<string, string>, prefix = 'oc-repo-'): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  writeFiles(root, files);
  return root;
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
}

export function tmpDir(prefix = 'oc-tmp-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
