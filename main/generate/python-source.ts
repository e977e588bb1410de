// Reading and rewriting Python source without a parser, for the offline backend (offline-backend.ts): a small
// lexer that renames identifiers without touching strings, comments or attributes, and a reader of a def's
// signature, parameters and body.

// ---- a small Python lexer: enough to rename identifiers without touching strings, comments or attributes ----

interface Tok {
  kind: 'name' | 'string' | 'comment' | 'other';
  start: number;
  end: number;
}

const STRING_PREFIX = /^[rRbBuUfF]{1,2}$/;

function scanString(src: string, i: number): number {
  const q = src[i]!;
  const triple = src.startsWith(q.repeat(3), i);
  let j = i + (triple ? 3 : 1);
  while (j < src.length) {
    const c = src[j]!;
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (triple) {
      if (src.startsWith(q.repeat(3), j)) return j + 3;
    } else {
      if (c === q) return j + 1;
      if (c === '\n') return j; // unterminated: stop at the line end
    }
    j++;
  }
  return src.length;
}

function lex(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '#') {
      const e = src.indexOf('\n', i);
      const end = e < 0 ? src.length : e;
      toks.push({ kind: 'comment', start: i, end });
      i = end;
    } else if (c === '"' || c === "'") {
      const end = scanString(src, i);
      toks.push({ kind: 'string', start: i, end });
      i = end;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < src.length && /\w/.test(src[j]!)) j++;
      const word = src.slice(i, j);
      if (STRING_PREFIX.test(word) && (src[j] === '"' || src[j] === "'")) {
        const end = scanString(src, j);
        toks.push({ kind: 'string', start: i, end });
        i = end;
      } else {
        toks.push({ kind: 'name', start: i, end: j });
        i = j;
      }
    } else {
      toks.push({ kind: 'other', start: i, end: i + 1 });
      i++;
    }
  }
  return toks;
}

/** Renames identifiers (not attributes after `.`, not keyword arguments, not inside strings or comments). */
export function renameIdentifiers(src: string, map: Map<string, string>): string {
  if (!map.size) return src;
  const toks = lex(src);
  let out = '';
  let last = 0;
  let depth = 0;
  toks.forEach((t, k) => {
    if (t.kind === 'other') {
      const c = src[t.start]!;
      if ('([{'.includes(c)) depth++;
      else if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
      return;
    }
    if (t.kind !== 'name') return;
    const word = src.slice(t.start, t.end);
    const to = map.get(word);
    if (to === undefined) return;
    let p = k - 1;
    while (p >= 0 && toks[p]!.kind === 'other' && /\s/.test(src[toks[p]!.start]!)) p--;
    if (p >= 0 && toks[p]!.kind === 'other' && src[toks[p]!.start] === '.') return;
    let q = k + 1;
    while (q < toks.length && toks[q]!.kind === 'other' && /[ \t]/.test(src[toks[q]!.start]!)) q++;
    const next = toks[q];
    const isKeywordArg = depth > 0 && next?.kind === 'other' && src[next.start] === '=' && src[next.start + 1] !== '=';
    if (isKeywordArg) return;
    out += src.slice(last, t.start) + to;
    last = t.end;
  });
  return out + src.slice(last);
}

// ---- signatures ----

export interface Param {
  name: string;
  /** `*args` → 'star', `**kw` → 'double', bare `*` → 'kwonly-marker', `/` → 'posonly-marker'. */
  kind: 'normal' | 'star' | 'double' | 'kwonly-marker' | 'posonly-marker';
  annotation?: string;
  default?: string;
  keywordOnly: boolean;
}

export interface ParsedDef {
  name: string;
  isAsync: boolean;
  params: Param[];
  returns?: string;
  /** Index just after the header's `:`. */
  headerEnd: number;
  /** Column of the `def`. */
  indent: number;
}

function splitTopLevel(s: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"' || c === "'") {
      const end = scanString(s, i);
      cur += s.slice(i, end);
      i = end - 1;
      continue;
    }
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    if (c === sep && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  return parts;
}

export function parseParams(inner: string): Param[] {
  const params: Param[] = [];
  let kwOnly = false;
  for (const rawPart of splitTopLevel(inner, ',')) {
    const part = rawPart.trim();
    if (!part) continue;
    if (part === '/') {
      params.push({ name: '/', kind: 'posonly-marker', keywordOnly: false });
      continue;
    }
    if (part === '*') {
      kwOnly = true;
      params.push({ name: '*', kind: 'kwonly-marker', keywordOnly: false });
      continue;
    }
    const [lhs, ...rest] = splitTopLevel(part, '=');
    const def = rest.length ? rest.join('=').trim() : undefined;
    const [nameRaw, ...ann] = splitTopLevel(lhs!, ':');
    let name = nameRaw!.trim();
    let kind: Param['kind'] = 'normal';
    if (name.startsWith('**')) {
      kind = 'double';
      name = name.slice(2);
    } else if (name.startsWith('*')) {
      kind = 'star';
      name = name.slice(1);
      kwOnly = true;
    }
    const p: Param = { name, kind, keywordOnly: kind === 'normal' && kwOnly };
    if (ann.length) p.annotation = ann.join(':').trim();
    if (def !== undefined) p.default = def;
    params.push(p);
  }
  return params;
}

/** The first `def` in a piece of Python code, with its parameters; null when there is none. */
export function parseFirstDef(src: string): ParsedDef | null {
  const toks = lex(src);
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.kind !== 'name' || src.slice(t.start, t.end) !== 'def') continue;
    let j = k + 1;
    const skipWs = () => {
      while (j < toks.length && toks[j]!.kind === 'other' && /\s/.test(src[toks[j]!.start]!)) j++;
    };
    skipWs();
    const nameTok = toks[j];
    if (!nameTok || nameTok.kind !== 'name') continue;
    j++;
    skipWs();
    if (!toks[j] || src[toks[j]!.start] !== '(') continue;
    const open = toks[j]!.start;
    let depth = 0;
    let close = -1;
    for (; j < toks.length; j++) {
      const tk = toks[j]!;
      if (tk.kind !== 'other') continue;
      const c = src[tk.start]!;
      if ('([{'.includes(c)) depth++;
      else if (')]}'.includes(c)) {
        depth--;
        if (depth === 0) {
          close = tk.start;
          break;
        }
      }
    }
    if (close < 0) return null;
    let colon = -1;
    depth = 0;
    for (j++; j < toks.length; j++) {
      const tk = toks[j]!;
      if (tk.kind !== 'other') continue;
      const c = src[tk.start]!;
      if ('([{'.includes(c)) depth++;
      else if (')]}'.includes(c)) depth--;
      else if (c === ':' && depth === 0) {
        colon = tk.start;
        break;
      }
    }
    if (colon < 0) return null;
    const between = src.slice(close + 1, colon).trim();
    const lineStart = src.lastIndexOf('\n', t.start) + 1;
    const before = src.slice(lineStart, t.start);
    const out: ParsedDef = {
      name: src.slice(nameTok.start, nameTok.end),
      isAsync: /\basync\s+$/.test(before),
      params: parseParams(src.slice(open + 1, close)),
      headerEnd: colon + 1,
      indent: before.length - before.trimStart().length,
    };
    if (between.startsWith('->')) out.returns = between.slice(2).trim();
    return out;
  }
  return null;
}

export function realParams(ps: Param[]): Param[] {
  return ps.filter((p) => p.kind !== 'kwonly-marker' && p.kind !== 'posonly-marker');
}

export function isReceiver(p: Param | undefined): boolean {
  return p?.name === 'self' || p?.name === 'cls';
}

function dedentLines(lines: string[]): string[] {
  let min = Infinity;
  for (const l of lines) if (l.trim()) min = Math.min(min, l.length - l.trimStart().length);
  return Number.isFinite(min) ? lines.map((l) => (l.trim() ? l.slice(min) : '')) : lines;
}

/** The body of the def that starts the code, dedented, without its docstring. */
export function bodyOf(src: string, def: ParsedDef): string {
  let rest = src.slice(def.headerEnd);
  const nl = rest.indexOf('\n');
  const sameLine = (nl < 0 ? rest : rest.slice(0, nl)).trim();
  if (sameLine && !sameLine.startsWith('#')) return sameLine; // `def f(x): return x`
  rest = nl < 0 ? '' : rest.slice(nl + 1);
  const lines = rest.split('\n');
  const end = lines.findIndex((l) => l.trim() && l.length - l.trimStart().length <= def.indent);
  let body = dedentLines(end < 0 ? lines : lines.slice(0, end))
    .join('\n')
    .replace(/\s+$/, '');
  // drop the donor's docstring: it describes the donor, not the target
  const toks = lex(body);
  const first = toks.find((t) => !(t.kind === 'other' && /\s/.test(body[t.start]!)));
  if (first?.kind === 'string') {
    const after = body.slice(first.end);
    const eol = after.indexOf('\n');
    if (!after.slice(0, eol < 0 ? after.length : eol).trim()) body = eol < 0 ? '' : after.slice(eol + 1);
  }
  return body.replace(/^\s*\n/, '').replace(/\s+$/, '') || 'pass';
}

export function indent(code: string, n: number): string {
  const pad = ' '.repeat(n);
  return code
    .split('\n')
    .map((l) => (l.trim() ? pad + l : ''))
    .join('\n');
}

export function headerOf(signature: string): string {
  const s = signature.trim();
  return s.endsWith(':') ? s : `${s}:`;
}

export function moduleOf(file: string): string {
  return file
    .replace(/\.pyi?$/, '')
    .replace(/\/__init__$/, '')
    .split('/')
    .join('.');
}
