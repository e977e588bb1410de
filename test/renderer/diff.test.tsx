// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { diffLines, diffStats, splitLines } from '../../renderer/src/lib/diff.ts';

const render = (a: string, b: string) =>
  diffLines(a, b)
    .map((l) => `${l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' '}${l.text}`)
    .join('\n');

describe('line diff (LCS)', () => {
  it('reports nothing changed for equal texts, with both line numbers', () => {
    const d = diffLines('a\nb\nc\n', 'a\nb\nc\n');
    expect(d.every((l) => l.kind === 'same')).toBe(true);
    expect(d.map((l) => [l.oldLine, l.newLine])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('finds an insertion and a deletion in the middle', () => {
    expect(render('a\nb\nc\nd', 'a\nc\nx\nd')).toBe(' a\n-b\n c\n+x\n d');
  });

  it('shows a replaced line as removed then added, keeping the common lines', () => {
    const a = 'def f(x):\n    y = x + 1\n    return y\n';
    const b = 'def f(x):\n    y = x + 2\n    return y\n';
    const d = diffLines(a, b);
    expect(render(a, b)).toBe(' def f(x):\n-    y = x + 1\n+    y = x + 2\n     return y');
    expect(diffStats(d)).toEqual({ added: 1, removed: 1, same: 2 });
    const del = d.find((l) => l.kind === 'del')!;
    const add = d.find((l) => l.kind === 'add')!;
    expect([del.oldLine, del.newLine, add.oldLine, add.newLine]).toEqual([2, undefined, undefined, 2]);
  });

  it('keeps the longest common subsequence when lines move', () => {
    const d = diffLines('a\nb\nc\nd\ne', 'b\nc\na\nd\ne');
    expect(diffStats(d).same).toBe(4);
    expect(diffStats(d).added + diffStats(d).removed).toBe(2);
  });

  it('handles empty sides, CRLF and a missing final newline', () => {
    expect(render('', 'x\ny')).toBe('+x\n+y');
    expect(render('x\ny\n', '')).toBe('-x\n-y');
    expect(diffLines('', '')).toEqual([]);
    expect(render('a\r\nb\r\n', 'a\nb')).toBe(' a\n b');
    expect(splitLines('a\n\nb\n')).toEqual(['a', '', 'b']);
  });

  it('numbers lines after the change correctly', () => {
    const d = diffLines('1\n2\n3\n4', '1\nnew\n2\n3\n4');
    const last = d[d.length - 1]!;
    expect(last).toMatchObject({ kind: 'same', text: '4', oldLine: 4, newLine: 5 });
  });
});
