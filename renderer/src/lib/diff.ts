// A line diff by longest common subsequence: what a repair changed in the code it was given. Common leading and
// trailing lines are peeled off first, so the quadratic table only covers the part that changed.

export type DiffKind = 'same' | 'add' | 'del';

export interface DiffLine {
  kind: DiffKind;
  text: string;
  /** 1-based line in the old text (same / del). */
  oldLine?: number;
  /** 1-based line in the new text (same / add). */
  newLine?: number;
}

export interface DiffStats {
  added: number;
  removed: number;
  same: number;
}

/** Above this many table cells the middle is shown as removed-then-added instead (still correct, just coarse). */
const MAX_CELLS = 4_000_000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function diffLines(oldText: string, newText: string): DiffLine[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ kind: 'same', text: a[i]!, oldLine: i + 1, newLine: i + 1 });
  out.push(...middle(a, b, start, endA, endB));
  for (let i = endA, j = endB; i < a.length; i++, j++) out.push({ kind: 'same', text: a[i]!, oldLine: i + 1, newLine: j + 1 });
  return out;
}

function middle(a: string[], b: string[], start: number, endA: number, endB: number): DiffLine[] {
  const n = endA - start;
  const m = endB - start;
  const out: DiffLine[] = [];
  if (n * m > MAX_CELLS || n === 0 || m === 0) {
    for (let i = start; i < endA; i++) out.push({ kind: 'del', text: a[i]!, oldLine: i + 1 });
    for (let j = start; j < endB; j++) out.push({ kind: 'add', text: b[j]!, newLine: j + 1 });
    return out;
  }
  // lcs[i][j] = LCS length of a[start+i..endA) and b[start+j..endB), flattened row-major.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[start + i] === b[start + j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[start + i] === b[start + j]) {
      out.push({ kind: 'same', text: a[start + i]!, oldLine: start + i + 1, newLine: start + j + 1 });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) {
      out.push({ kind: 'del', text: a[start + i]!, oldLine: start + i + 1 });
      i++;
    } else {
      out.push({ kind: 'add', text: b[start + j]!, newLine: start + j + 1 });
      j++;
    }
  }
  for (; i < n; i++) out.push({ kind: 'del', text: a[start + i]!, oldLine: start + i + 1 });
  for (; j < m; j++) out.push({ kind: 'add', text: b[start + j]!, newLine: start + j + 1 });
  return out;
}

export function diffStats(lines: DiffLine[]): DiffStats {
  const s: DiffStats = { added: 0, removed: 0, same: 0 };
  for (const l of lines) {
    if (l.kind === 'add') s.added++;
    else if (l.kind === 'del') s.removed++;
    else s.same++;
  }
  return s;
}
