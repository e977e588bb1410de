// Deciding whether a path lies inside a folder, with symlinks resolved: the app's allowed roots and the
// manifests' repository confinement both ask it, and must answer the same way.

import fs from 'node:fs';
import path from 'node:path';

/** The absolute path with every symlink on its existing part resolved (a missing tail is kept as written). */
export function canonicalPath(p: string): string {
  const abs = path.resolve(p);
  let head = abs;
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(head), ...tail.reverse());
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return abs;
      tail.push(path.basename(head));
      head = parent;
    }
  }
}

export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}
