// Classifying a candidate file from its first bytes: binary data, generated code (generated-code.ts holds
// that rule: an output name, an explicit marker, or a "generated" header backed by the file's shape) and
// minified scripts are left out of the index, each with the evidence that decided it.
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import type { Language } from '../model/code.ts';
import { generatedEvidence } from './generated-code.ts';
import { languageOf } from './languages.ts';
import type { ContentSkipReason } from './walk-types.ts';

/** How much of each candidate file classification reads. */
export const HEAD_BYTES = 8192;

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const JS_LIKE: ReadonlySet<Language> = new Set<Language>(['typescript', 'tsx', 'javascript']);

const MINIFIED_NAME = /[.-]min\.[cm]?js$/i;
/** PEP 263 encoding declaration (first two lines of a Python file). */
const PY_CODING = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;

const MINIFIED_LINE_CHARS = 1000;
const MINIFIED_AVG_LINE_CHARS = 300;

/** What classification found: the reason the file is left out, and the evidence in a few words. */
export interface ContentVerdict {
  reason: ContentSkipReason;
  evidence: string;
}

/**
 * Classifies a file from its first bytes (`head`, at most HEAD_BYTES) and its full `size`:
 * 'binary' (NUL byte, or mostly invalid UTF-8 / control bytes), 'generated' (see generated-code.ts: an output
 * name, an explicit marker, or a "generated" header that the file's shape agrees with), 'minified'
 * (`*.min.js`, or for JS/TS a line over ~1,000 characters with few newlines). Returns null for ordinary source.
 */
export function classifyContent(relPath: string, head: Buffer, size: number): ContentSkipReason | null {
  return explainContent(relPath, head, size)?.reason ?? null;
}

/** classifyContent, with the evidence that decided it (the walk records it as the skip's detail). */
export function explainContent(relPath: string, head: Buffer, size: number): ContentVerdict | null {
  if (head.length === 0) return null;
  if (head.includes(0)) return { reason: 'binary', evidence: 'NUL byte' };

  const truncated = head.length < size;
  // A multi-byte character cut by the end of the head must not count as invalid: streaming mode holds it back.
  const text = truncated ? utf8.decode(head, { stream: true }) : utf8.decode(head);
  if (truncated) utf8.decode(); // reset the decoder's pending bytes
  const base = relPath.slice(relPath.lastIndexOf('/') + 1);
  if (looksBinary(head, text, declaresLegacyEncoding(base, text))) return { reason: 'binary', evidence: 'control bytes or invalid UTF-8' };

  if (MINIFIED_NAME.test(base)) return { reason: 'minified', evidence: 'minified file name' };
  const generated = generatedEvidence(relPath, text, size);
  if (generated !== null) return { reason: 'generated', evidence: generated };

  const lang = languageOf(base);
  if (lang !== null && JS_LIKE.has(lang) && looksMinified(text)) return { reason: 'minified', evidence: 'long lines with few line breaks' };
  return null;
}

/** A Python file that declares a non-UTF-8 source encoding (koi8-r, latin-1): its bytes are not UTF-8 by design. */
function declaresLegacyEncoding(base: string, text: string): boolean {
  if (!base.endsWith('.py') && !base.endsWith('.pyi')) return false;
  const nl = text.indexOf('\n');
  const nl2 = nl === -1 ? -1 : text.indexOf('\n', nl + 1);
  const firstTwo = (nl2 === -1 ? text : text.slice(0, nl2)).split('\n');
  for (const line of firstTwo) {
    const m = PY_CODING.exec(line);
    if (m) return !/^utf[-_]?8/i.test(m[1]!);
  }
  return false;
}

/** Control characters other than \t \n \v \f \r and ESC (ANSI colour codes appear in test fixtures). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARS = /[\x01-\x08\x0e-\x1a\x1c-\x1f]/g;

function looksBinary(head: Buffer, text: string, legacyEncoding: boolean): boolean {
  // Regular expressions and isUtf8 run natively: a per-byte JS loop was a visible share of a stdlib walk.
  CONTROL_CHARS.lastIndex = 0;
  if (CONTROL_CHARS.test(text)) {
    CONTROL_CHARS.lastIndex = 0;
    const control = text.match(CONTROL_CHARS)?.length ?? 0;
    if (control > text.length * 0.1) return true;
  }
  if (legacyEncoding || isUtf8(head)) return false;
  let invalid = 0;
  for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) invalid++;
  // Legacy-encoded source (latin-1 comments) has a few invalid sequences; binary data has many.
  return invalid > 8 && invalid > text.length * 0.1;
}

function looksMinified(text: string): boolean {
  let longest = 0;
  let newlines = 0;
  let lineStart = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      newlines++;
      if (i - lineStart > longest) longest = i - lineStart;
      lineStart = i + 1;
    }
  }
  if (text.length - lineStart > longest) longest = text.length - lineStart;
  return longest > MINIFIED_LINE_CHARS && text.length / (newlines + 1) > MINIFIED_AVG_LINE_CHARS;
}
