// Text helpers shared by the extractors: content hashes, collapsing a fragment onto one line, capping and
// indenting multi-line statements, counting lines.
import { createHash } from 'node:crypto';
import type { Language } from '../model/code.ts';

/** Hex sha256 of a text (the content hash of units and chunks). */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Collapses a possibly multi-line fragment onto one line. */
export function flat(s: string, lang: Language = 'python'): string {
  if (!s.includes('\n')) return s.trim();
  const comment = lang === 'python' ? /[ \t]+#[^'"\n]*(?=\r?\n)/g : /[ \t]+\/\/[^'"`\n]*(?=\r?\n)/g;
  return s
    .replace(comment, '')
    .replace(/\\\r?\n/g, ' ')
    .replace(/\s*\r?\n\s*/g, ' ')
    .replace(/([([{]) /g, '$1')
    .replace(/ ([)\]}])/g, '$1')
    .trim();
}

/** Keeps at most `max` lines of a statement, marking the cut. */
export function capLines(text: string, max: number, marker: string): string {
  let idx = -1;
  for (let i = 0; i < max; i++) {
    idx = text.indexOf('\n', idx + 1);
    if (idx === -1) return text;
  }
  return text.slice(0, idx).replace(/\s+$/, '') + ' ' + marker;
}

/** Indents every non-empty line. */
export function indentLines(text: string, indent: string): string {
  return text
    .split('\n')
    .map((l) => (l ? indent + l : l))
    .join('\n');
}

/** Lines in a source text; a final newline does not start another line. */
export function countLines(src: string): number {
  let n = 1;
  for (let i = src.indexOf('\n'); i !== -1; i = src.indexOf('\n', i + 1)) n++;
  if (src.endsWith('\n') && n > 1) n--;
  return n;
}
