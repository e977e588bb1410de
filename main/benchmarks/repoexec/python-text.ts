// Python text helpers that need no parser: logical lines (brackets, strings and backslashes join
// physical lines), indentation, giving body-less block headers a `...` body, and the normal form of a
// statement that views are compared by.

export interface LogicalLine {
  /** 0-based physical line range, inclusive. */
  first: number;
  last: number;
  /** Code of the logical line without comments; '' for blank or comment-only lines. */
  code: string;
}

/** Splits Python source lines into logical lines (brackets, strings and backslashes join lines). */
export function logicalLines(lines: string[]): LogicalLine[] {
  const out: LogicalLine[] = [];
  let inStr: { q: string; triple: boolean } | null = null;
  let depth = 0;
  let start = 0;
  let code = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let cont = false;
    for (let j = 0; j < line.length; j++) {
      const ch = line[j]!;
      if (inStr) {
        if (ch === '\\') {
          if (j === line.length - 1) cont = true;
          code += line.slice(j, j + 2);
          j++;
        } else if (inStr.triple && line.startsWith(inStr.q.repeat(3), j)) {
          code += inStr.q.repeat(3);
          j += 2;
          inStr = null;
        } else {
          if (!inStr.triple && ch === inStr.q) inStr = null;
          code += ch;
        }
        continue;
      }
      if (ch === '#') break;
      if (ch === '"' || ch === "'") {
        const triple = line.startsWith(ch.repeat(3), j);
        inStr = { q: ch, triple };
        code += triple ? ch.repeat(3) : ch;
        if (triple) j += 2;
        continue;
      }
      if (ch === '\\' && j === line.length - 1) {
        cont = true;
        continue;
      }
      if ('([{'.includes(ch)) depth++;
      else if (')]}'.includes(ch)) depth = Math.max(0, depth - 1);
      code += ch;
    }
    // An unterminated one-line string ends at the newline (garbage; the parser will say so).
    if (inStr && !inStr.triple && !cont) inStr = null;
    if (inStr || depth > 0 || cont) {
      code += '\n';
      continue;
    }
    out.push({ first: start, last: i, code: code.trim() ? code : '' });
    start = i + 1;
    code = '';
  }
  if (start < lines.length) out.push({ first: start, last: lines.length - 1, code: code.trim() ? code : '' });
  return out;
}

function indentWidth(line: string): number {
  let w = 0;
  for (const ch of line) {
    if (ch === ' ') w++;
    else if (ch === '\t') w += 8 - (w % 8);
    else break;
  }
  return w;
}

function leadingWs(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

const BLOCK_HEADER = /^\s*(?:async\s+)?(?:def|class|if|elif|else|try|except\*?|finally|for|while|with)\b/;

/**
 * Gives every block header with no body (`def f(x):` followed by a dedent, as RepoExec's views
 * print stubs) a `...` body. Returns the new lines and how many bodies were filled.
 */
export function fillEmptyBlocks(lines: string[]): { lines: string[]; filled: number } {
  const logical = logicalLines(lines);
  const inserts: { after: number; text: string }[] = [];
  for (let k = 0; k < logical.length; k++) {
    const L = logical[k]!;
    if (!L.code || !BLOCK_HEADER.test(L.code) || !L.code.trimEnd().endsWith(':')) continue;
    let next: LogicalLine | undefined;
    for (let m = k + 1; m < logical.length; m++) {
      if (logical[m]!.code) {
        next = logical[m];
        break;
      }
    }
    const head = lines[L.first]!;
    if (!next || indentWidth(lines[next.first]!) <= indentWidth(head)) {
      inserts.push({ after: L.last, text: `${leadingWs(head)}    ...` });
    }
  }
  if (!inserts.length) return { lines, filled: 0 };
  const out = lines.slice();
  for (let i = inserts.length - 1; i >= 0; i--) out.splice(inserts[i]!.after + 1, 0, inserts[i]!.text);
  return { lines: out, filled: inserts.length };
}

/** Removes the common leading indentation of non-blank lines. */
export function dedent(text: string): string {
  const lines = text.split('\n');
  let min = Infinity;
  for (const l of lines) if (l.trim()) min = Math.min(min, leadingWs(l).length);
  if (!min || min === Infinity) return text;
  return lines.map((l) => (l.trim() ? l.slice(min) : '')).join('\n');
}

/** Moves a block whose first line starts at column `from` to column `to` (other lines shift alike). */
export function shiftBlock(text: string, from: number, to: number): string {
  const first = ' '.repeat(to);
  const lines = text.split('\n');
  if (from === to) return first + text;
  return lines
    .map((l, i) => {
      if (i === 0) return first + l;
      if (!l.trim()) return l;
      if (to > from) return ' '.repeat(to - from) + l;
      const ws = leadingWs(l);
      return l.slice(Math.min(ws.length, from - to));
    })
    .join('\n');
}

/** A statement with comments dropped and whitespace collapsed: how copies of one statement in different views match. */
export function normaliseStatement(text: string): string {
  return text
    .replace(/#[^\n'"]*$/gm, '')
    .replace(/\s+/g, ' ')
    .replace(/([([{]) /g, '$1')
    .replace(/ ([)\]}])/g, '$1')
    .replace(/,\s*\)/g, ')')
    .trim();
}

/** The code of a logical line without its comments (trailing whitespace trimmed). */
export function stripLineComment(code: string): string {
  const L = logicalLines(code.split('\n'));
  return L.map((l) => l.code)
    .join('\n')
    .trimEnd();
}

/** True when a compound statement has nothing but clause headers and `...`/`pass` bodies. */
export function isHollow(text: string): boolean {
  return logicalLines(text.split('\n')).every((L) => {
    const code = L.code.trim();
    return !code || code === '...' || code === 'pass' || (BLOCK_HEADER.test(code) && code.endsWith(':'));
  });
}
