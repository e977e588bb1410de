// Getting the code out of a model's reply: fences of any language tag (``` or ~~~, closed or cut off), several
// blocks, no fence at all, and prose before, between and after the code.

export interface Extraction {
  code: string;
  ok: boolean;
  /** Fenced blocks found in the reply. */
  blocks: number;
  /** How the code was found (or why none was). */
  note: string;
}

export interface ExtractOptions {
  /** The target's name: the block that defines it wins. */
  name?: string;
  /** The target's qualified name; for `Class.method`, a whole class in the reply is cut down to the method. */
  qualname?: string;
}

interface Block {
  info: string;
  body: string;
  closed: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

function fencedBlocks(reply: string): Block[] {
  const lines = reply.split(/\r?\n/);
  const blocks: Block[] = [];
  let open: { fence: string; info: string; lines: string[] } | null = null;
  for (const line of lines) {
    if (!open) {
      const m = FENCE.exec(line);
      // a backtick fence's info string may not contain backticks (CommonMark); that also skips inline ```code```
      if (m && !(m[1]!.startsWith('`') && m[2]!.includes('`'))) open = { fence: m[1]!, info: m[2]!.trim(), lines: [] };
      continue;
    }
    const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
    if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
      blocks.push({ info: open.info, body: open.lines.join('\n'), closed: true });
      open = null;
    } else open.lines.push(line);
  }
  // a reply cut off by the token limit leaves its last fence open: keep what is there
  if (open && open.lines.some((l) => l.trim())) blocks.push({ info: open.info, body: open.lines.join('\n'), closed: false });
  return blocks;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function definesName(code: string, name: string): boolean {
  const n = escapeRe(name);
  return new RegExp(`^\\s*(?:async\\s+)?(?:def|function\\*?|class)\\s+${n}\\b|^\\s*(?:export\\s+)?(?:const|let|var)\\s+${n}\\s*=|^\\s*${n}\\s*[:=(]`, 'm').test(
    code,
  );
}

const IMPORT_LINE = /^\s*(?:import\s+\S|from\s+\S+\s+import\s)/;

function onlyImports(code: string): boolean {
  const lines = code.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  return lines.length > 0 && lines.every((l) => IMPORT_LINE.test(l));
}

/** Removes the indentation common to every non-blank line. */
export function dedent(code: string): string {
  const lines = code.replace(/\t/g, '    ').split('\n');
  let min = Infinity;
  for (const l of lines) if (l.trim()) min = Math.min(min, l.length - l.trimStart().length);
  if (!Number.isFinite(min) || min === 0) return lines.join('\n');
  return lines.map((l) => (l.trim() ? l.slice(min) : '')).join('\n');
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** The `def name` block (with its decorators) out of a larger piece of Python code; null when not found. */
export function definitionOf(code: string, name: string): string | null {
  return defBlock(code.replace(/\r\n/g, '\n'), name, { withImports: false });
}

function defBlock(code: string, name: string, opts: { withImports: boolean }): string | null {
  const lines = code.split('\n');
  const header = new RegExp(`^\\s*(?:async\\s+)?def\\s+${escapeRe(name)}\\s*\\(`);
  const at = lines.findIndex((l) => header.test(l));
  if (at < 0) return null;
  const ind = indentOf(lines[at]!);
  let start = at;
  while (start > 0 && /^\s*@/.test(lines[start - 1]!) && indentOf(lines[start - 1]!) === ind) start--;
  let end = at + 1;
  // the header may span lines until its closing `):`; then the body is every deeper-indented or blank line
  let depth = 0;
  for (let i = at; i < lines.length; i++) {
    for (const ch of lines[i]!) depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
    end = i + 1;
    if (depth <= 0 && /:\s*(#.*)?$/.test(lines[i]!)) break;
  }
  while (end < lines.length && (!lines[end]!.trim() || indentOf(lines[end]!) > ind)) end++;
  while (end > at + 1 && !lines[end - 1]!.trim()) end--;
  let pre: string[] = [];
  if (opts.withImports) {
    let k = start;
    while (k > 0 && (IMPORT_LINE.test(lines[k - 1]!) || !lines[k - 1]!.trim())) k--;
    pre = lines.slice(k, start).filter((l) => l.trim());
    if (pre.length) pre.push('');
  }
  return [...pre, ...lines.slice(start, end)].join('\n');
}

const CODE_SIGNAL =
  /^\s*(?:(?:async\s+)?def\s|class\s|import\s|from\s+\S+\s+import\s|@\w|return\b|if\s.*:$|for\s.*:$|while\s.*:$|function\s|const\s|let\s|export\s)/m;

function finish(code: string, note: string, blocks: number, opts: ExtractOptions): Extraction {
  let out = dedent(code.replace(/\r\n/g, '\n')).replace(/\s+$/, '');
  // Target is a method, reply is its whole class: keep just the method.
  const dot = opts.qualname?.lastIndexOf('.') ?? -1;
  if (opts.name && dot > 0 && /^\s*class\s/m.test(out)) {
    const m = defBlock(out, opts.name, { withImports: false });
    if (m && indentOf(m.split('\n').find((l) => l.trim())!) > 0) {
      out = dedent(m).replace(/\s+$/, '');
      note += '; method cut out of its class';
    }
  }
  if (!out.trim()) return { code: '', ok: false, blocks, note: note.includes('empty') ? note : `${note}; nothing left` };
  return { code: `${out}\n`, ok: true, blocks, note };
}

/** Extracts the candidate code from a reply. `ok` is false (and `code` empty) only when there is no code at all. */
export function extractCode(reply: string, opts: ExtractOptions = {}): Extraction {
  if (!reply.trim()) return { code: '', ok: false, blocks: 0, note: 'empty reply' };
  const blocks = fencedBlocks(reply).filter((b) => b.body.trim());
  if (blocks.length) {
    const n = blocks.length;
    const defining = opts.name ? blocks.filter((b) => definesName(b.body, opts.name!)) : [];
    let chosen: Block;
    let note: string;
    if (defining.length) {
      // several versions of the target: the last is the model's final answer
      chosen = defining[defining.length - 1]!;
      note = n === 1 ? 'fenced block' : `block ${blocks.indexOf(chosen) + 1} of ${n}, the ${defining.length > 1 ? 'last one ' : 'one '}defining ${opts.name}`;
    } else {
      chosen = blocks.reduce((a, b) => (b.body.trim().length > a.body.trim().length ? b : a));
      note = n === 1 ? 'fenced block' : `longest of ${n} blocks${opts.name ? ` (none defines ${opts.name})` : ''}`;
    }
    let code = chosen.body;
    // imports the model put in a block of their own, before the code
    const importBlocks = blocks.slice(0, blocks.indexOf(chosen)).filter((b) => onlyImports(b.body));
    if (importBlocks.length) {
      code = `${importBlocks.map((b) => dedent(b.body).trim()).join('\n')}\n\n${dedent(code)}`;
      note += ' + imports from an earlier block';
    }
    if (!chosen.closed) note += ' (fence not closed: reply cut off?)';
    return finish(code, note, n, opts);
  }
  // No fence: the definition with the imports just above it, prose around it dropped.
  if (opts.name) {
    const block = defBlock(reply.replace(/\r\n/g, '\n'), opts.name, { withImports: true });
    if (block) return finish(block, 'no fence; definition taken from the prose', 0, opts);
  }
  if (CODE_SIGNAL.test(reply)) {
    const lines = reply.replace(/\r\n/g, '\n').split('\n');
    const first = lines.findIndex((l) => CODE_SIGNAL.test(l));
    return finish(lines.slice(first).join('\n'), 'no fence; reply from its first code line', 0, opts);
  }
  return { code: '', ok: false, blocks: 0, note: 'no code in the reply' };
}
