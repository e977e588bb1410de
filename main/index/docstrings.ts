// Docstring helpers shared by the extractors: Python's inspect.cleandoc, Python string-literal escapes, and
// the text of a `/** … */` comment.

function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) {
    if (ch === '\t') out += ' '.repeat(8 - (out.length % 8));
    else out += ch;
  }
  return out;
}

/** Same rules as Python's inspect.cleandoc. */
export function cleandoc(doc: string): string {
  const lines = doc.split(/\r?\n/).map(expandTabs);
  let margin = Infinity;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const content = line.trimStart().length;
    if (content > 0) margin = Math.min(margin, line.length - content);
  }
  lines[0] = lines[0]!.trimStart();
  if (margin !== Infinity) for (let i = 1; i < lines.length; i++) lines[i] = lines[i]!.slice(margin);
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  while (lines.length > 0 && lines[0].trim() === '') lines.shift();
  return lines.join('\n');
}

/** The first non-blank line of a docstring, trimmed. */
export function firstDocLine(doc: string | null): string | null {
  if (!doc) return null;
  for (const line of doc.split('\n')) if (line.trim()) return line.trim();
  return null;
}

const PY_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** Resolves the escapes of a non-raw Python string literal's content. */
export function pyUnescape(s: string): string {
  if (!s.includes('\\')) return s;
  return s.replace(/\\(\r?\n|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (m, e: string) => {
    if (e === '\n' || e === '\r\n') return '';
    if (e.length > 1) {
      const cp = parseInt(e.slice(1), 16);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    return PY_ESCAPES[e] ?? m;
  });
}

/** The cleaned text of a JSDoc comment (opening with slash-star-star), or null for any other or an empty one. */
export function cleanJsDoc(comment: string): string | null {
  if (!comment.startsWith('/**') || comment === '/**/') return null;
  const inner = comment.slice(3, comment.endsWith('*/') ? -2 : undefined);
  const lines = inner.split(/\r?\n/).map((l, i) => (i === 0 ? l : l.replace(/^\s*\*(?!\/) ?/, '')));
  const doc = cleandoc(lines.map((l) => l.trimEnd()).join('\n'));
  return doc || null;
}
