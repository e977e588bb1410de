// One module's source from the items its views show: merging copies of the same item (the best version
// wins, classes merge member by member, a hollow statement yields to a full one) and rendering them,
// dropping any merged item that makes the module unparseable (never a focal function).

import { firstProblemRow, type PythonTools } from './python-parser.ts';
import { better, type Item } from './view-items.ts';

/** Union of items by key (first-seen order); the best version of each wins, classes merge members. */
export function mergeItems(items: Item[]): Item[] {
  const order: string[] = [];
  const best = new Map<string, Item>();
  for (const it of items) {
    const prev = best.get(it.key);
    if (!prev) {
      order.push(it.key);
      best.set(it.key, it.kind === 'class' ? { ...it, members: [...(it.members ?? [])] } : it);
      continue;
    }
    if (it.kind === 'class' && prev.kind === 'class') {
      const members = prev.members!;
      for (const mm of it.members ?? []) {
        const i = members.findIndex((x) => x.key === mm.key);
        if (i === -1) members.push(mm);
        else members[i] = better(members[i]!, mm);
      }
      const docstring = (it.docstring?.length ?? 0) > (prev.docstring?.length ?? 0) ? it.docstring : prev.docstring;
      best.set(it.key, {
        ...prev,
        docstring,
        members,
        rank: Math.max(prev.rank, it.rank),
        focal: prev.focal || it.focal,
        focalClass: prev.focalClass ?? it.focalClass,
      });
    } else if (it.focal || (!prev.focal && better(prev, it) === it)) {
      best.set(it.key, it);
    }
  }
  const out = order.map((k) => best.get(k)!);
  // A hollow statement is dropped when a fuller one with the same first line exists.
  const fullHeads = new Set(out.filter((i) => i.kind === 'stmt' && !i.hollow).map((i) => i.head));
  return out.filter((i) => !(i.kind === 'stmt' && i.hollow && fullHeads.has(i.head)));
}

function renderItem(it: Item): string {
  if (it.kind !== 'class') return it.text;
  const body: string[] = [];
  if (it.docstring) body.push(it.docstring);
  for (const mm of it.members ?? []) body.push(mm.text);
  if (!body.length) body.push('    ...');
  return `${it.header}\n${body.join('\n\n')}`;
}

/**
 * A module's source: a header comment, `from __future__` imports, imports, then the other items in order.
 * An item the parser blames is dropped (reported to `onDrop` by its first line) and the rest rendered
 * again, until the module parses or the fault lies in the header or a focal function.
 */
export function renderModule(module: string, items: Item[], tools: PythonTools, onDrop: (what: string) => void): string {
  let keep = items.slice();
  for (;;) {
    const head = [`# ${module}: rebuilt by \`opencoder import repoexec\` from RepoExec's module views and focal functions.`];
    const futures = keep.filter((i) => i.kind === 'future').map((i) => i.text);
    const imports = keep.filter((i) => i.kind === 'import').map((i) => i.text);
    const rest = keep.filter((i) => i.kind !== 'future' && i.kind !== 'import');
    const chunks: { text: string; item: Item | null }[] = [];
    const pre = [...head, ...futures, ...imports].join('\n');
    chunks.push({ text: pre, item: null });
    for (const it of rest) chunks.push({ text: renderItem(it), item: it });
    const source = chunks.map((c) => c.text).join('\n\n\n') + '\n';
    const tree = tools.parser.parse(source)!;
    let row: number | null;
    try {
      row = firstProblemRow(tree.rootNode);
    } finally {
      tree.delete();
    }
    if (row === null) return source;
    // Find the chunk holding the problem and drop it (never the header or a focal function).
    let line = 0;
    let culprit: Item | null = null;
    for (const c of chunks) {
      const n = c.text.split('\n').length;
      if (row < line + n) {
        culprit = c.item;
        break;
      }
      line += n + 2;
    }
    if (!culprit) {
      // The imports block: drop the import line at fault.
      const lines = pre.split('\n');
      const bad = lines[row];
      const imp = keep.find((i) => (i.kind === 'import' || i.kind === 'future') && bad !== undefined && i.text.split('\n').includes(bad));
      if (!imp) return source;
      culprit = imp;
    }
    if (culprit.focal) return source;
    onDrop(firstLine(culprit.text));
    keep = keep.filter((i) => i !== culprit);
  }
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? ''
  );
}
