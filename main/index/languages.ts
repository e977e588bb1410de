// Which files the index reads, by extension, and the dotted module name a source path stands for. One table
// serves both the walk (which files to pick up) and the extractor (which grammar parses a file).
import path from 'node:path';
import type { Language } from '../model/code.ts';

/** The extensions the index reads, and the language each one is parsed as. */
const LANGUAGE_BY_EXT: ReadonlyMap<string, Language> = new Map([
  ['.py', 'python'],
  ['.pyi', 'python'],
  ['.ts', 'typescript'],
  ['.mts', 'typescript'],
  ['.cts', 'typescript'],
  ['.tsx', 'tsx'],
  ['.js', 'javascript'],
  ['.mjs', 'javascript'],
  ['.cjs', 'javascript'],
  ['.jsx', 'javascript'],
]);

/**
 * Language for a walked path ('/' separators; a backslash is part of a file name) by its extension, or null
 * when the walk does not index it.
 */
export function languageOf(relPath: string): Language | null {
  return LANGUAGE_BY_EXT.get(path.posix.extname(relPath).toLowerCase()) ?? null;
}

/** Language for a relative path that may use '\' separators, or null when no grammar parses it. */
export function languageForPath(relPath: string): Language | null {
  const ext = path.posix.extname(relPath.replace(/\\/g, '/')).toLowerCase();
  return LANGUAGE_BY_EXT.get(ext) ?? null;
}

/**
 * Dotted module name: `pkg/sub/mod.py` → `pkg.sub.mod`, `pkg/__init__.py` → `pkg`,
 * `src/util/index.ts` → `src.util`, `types/x.d.ts` → `types.x`. A package or index file at the
 * repository root keeps its own name (`__init__`, `index`) so the name is never empty.
 */
export function moduleNameForPath(relPath: string, language: Language): string {
  let p = relPath
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '');
  if (language === 'python') {
    p = p.replace(/\.pyi?$/i, '');
  } else {
    p = p.replace(/\.d\.(ts|mts|cts)$/i, '').replace(/\.(ts|mts|cts|tsx|js|mjs|cjs|jsx)$/i, '');
  }
  const parts = p.split('/').filter((s) => s.length > 0);
  const last = parts[parts.length - 1];
  const pkgFile = language === 'python' ? '__init__' : 'index';
  if (parts.length > 1 && last === pkgFile) parts.pop();
  return parts.join('.');
}
