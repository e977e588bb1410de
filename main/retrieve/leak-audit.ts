// The leakage audit: before the evidence is fused (and so before any prompt is built), every item still kept is
// compared with what would give the answer away: the reference's body (signature and docstrings aside) and the
// assertions of the task's tests that name the target. An item is a leak suspect when it shares a run of LEAK_RUN
// tokens or more (as written, names included) with those assertions, or shares such runs with the reference covering
// at least REFERENCE_COVER of its body (a copy; a sibling function sharing a loop with it is not one), or holds a string those
// assertions expect that neither the reference nor the requirement contains (an expected output). By default a suspect is dropped (`drop`); `flag` keeps it and marks it.
// The masks (target, twins, test files) come first; the audit is what catches what they miss, and it counts both.

import fs from 'node:fs';
import path from 'node:path';
import type { Evidence, LeakSuspect } from '../model/trace.ts';
import { namedByTestCommand } from '../index/test-files.ts';

/** Shared token runs this long are suspect. */
export const LEAK_RUN = 20;
/**
 * Share of the reference's body that runs shared with one item must cover for a copy (a planted copy covers all of
 * it; RepoExec's sibling functions that share an error-handling block or a loop with the target cover up to ~0.6).
 */
export const REFERENCE_COVER = 0.8;
/** Test sources read per task, at most (bytes). */
const MAX_TEST_BYTES = 2_000_000;

const tokensOf = (text: string): string[] => text.match(/[A-Za-z_]\w*|\d+(?:\.\d+)?|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\S/g) ?? [];

/** What the audit compares against. */
export interface LeakSources {
  reference: string | null;
  /** The task's test sources: [where, text]. */
  tests: [string, string][];
  requirement: string;
  /** The target's name (the last part of its qualified name): the tests that name it are the ones compared. */
  targetName: string;
}

/** A task's test sources: its check program's tests, or the files its test command names (test files only when it names a folder). */
export function taskTestSources(
  task: { test_command?: string; check_template?: string; placeholder?: string },
  repoRoot: string | null,
  paths: Iterable<string>,
): [string, string][] {
  const out: [string, string][] = [];
  if (task.check_template) {
    const at = task.placeholder ? task.check_template.indexOf(task.placeholder) : -1;
    out.push(['check program', at >= 0 ? task.check_template.slice(at + task.placeholder!.length) : task.check_template]);
  }
  if (task.test_command && repoRoot) {
    const named = namedByTestCommand(task.test_command);
    let bytes = 0;
    for (const p of paths) {
      if (!named(p) || !p.endsWith('.py')) continue;
      try {
        const text = fs.readFileSync(path.join(repoRoot, p), 'utf8');
        bytes += text.length;
        if (bytes > MAX_TEST_BYTES) break;
        out.push([p, text]);
      } catch {
        // a file gone since the index: nothing of it can leak from the index either
      }
    }
  }
  return out;
}

/**
 * The tests that exercise the target: in a file of tests, the `def test…` blocks (and their classes' helpers are
 * left out) whose text names the target; a check program's tests whole. Only their assertions are what a leak
 * would give away (expected outputs); inputs and fixtures that library docs share are not.
 */
export function answerLines(tests: [string, string][], targetName: string): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const [where, text] of tests) {
    const lines = text.split('\n');
    const blocks: string[][] = [];
    if (where === 'check program') blocks.push(lines);
    else {
      for (let i = 0; i < lines.length; i++) {
        const m = /^(\s*)(?:async\s+)?def\s+test\w*\s*\(/.exec(lines[i]!);
        if (!m) continue;
        const indent = m[1]!.length;
        let j = i + 1;
        while (j < lines.length && (!lines[j]!.trim() || /^\s*/.exec(lines[j]!)![0].length > indent)) j++;
        const block = lines.slice(i, j);
        if (!targetName || block.some((l) => l.includes(targetName))) blocks.push(block);
        i = j - 1;
      }
    }
    const isAssert = (l: string) => /\bassert|\.assert[A-Z]\w*\(/.test(l);
    const asserted = blocks.flat().filter(isAssert);
    // What the tests themselves set up (every line of the file that asserts nothing): a value found there is an
    // input the assertion echoes back, not an output the target computes.
    if (asserted.length) out.push([where, asserted.join('\n'), lines.filter((l) => !isAssert(l)).join('\n')]);
  }
  return out;
}

/** `line` without the arguments of every call of `name` (what the tests pass the target is an input, not an answer). */
function withoutCallsOf(line: string, name: string): string {
  if (!name) return line;
  let out = '';
  let i = 0;
  for (;;) {
    const at = line.indexOf(`${name}(`, i);
    if (at < 0 || (at > 0 && /[\w]/.test(line[at - 1]!))) {
      if (at < 0) return out + line.slice(i);
      out += line.slice(i, at + name.length + 1);
      i = at + name.length + 1;
      continue;
    }
    out += line.slice(i, at + name.length);
    let depth = 0;
    let j = at + name.length;
    for (; j < line.length; j++) {
      const ch = line[j]!;
      if (ch === '"' || ch === "'") {
        const close = line.indexOf(ch, j + 1);
        j = close < 0 ? line.length : close;
      } else if (ch === '(') depth++;
      else if (ch === ')' && --depth === 0) break;
    }
    out += '()';
    i = j + 1;
  }
}

/**
 * Strings the tests assert, not in `known` (the reference, the signature and the requirement), nor among what the
 * tests pass the target or set up themselves: 6+ characters with a space inside, or with a digit and a character
 * that is neither a letter, a digit, `_` nor `-` (an expected output such as "976.6 KiB" or "€1,299.90"; not a
 * name, header, encoding or path that library code shares, such as "content-type", "utf-8-sig" or "/foo?a=b").
 * String literals are read as Python tokens.
 */
export function assertedLiterals(answers: [string, string, string][], known: string, targetName = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [where, text, setUp] of answers) {
    for (const line of text.split('\n')) {
      for (const tok of tokensOf(withoutCallsOf(line, targetName))) {
        if (tok[0] !== '"' && tok[0] !== "'") continue;
        const lit = tok.slice(1, -1);
        if (lit.length < 6 || !(/\s/.test(lit.trim()) || (/\d/.test(lit) && /[^\w-]/.test(lit))) || known.includes(lit) || setUp.includes(lit) || out.has(lit))
          continue;
        out.set(lit, where);
      }
    }
  }
  return out;
}

/** The reference without its signature (which the prompt shows anyway, over one line or several) and docstrings. */
function referenceBody(reference: string): string {
  const lines = reference.split('\n');
  let i = lines.findIndex((l) => /^\s*(?:async\s+)?def\s/.test(l));
  if (i >= 0) {
    let depth = 0;
    for (; i < lines.length; i++) {
      for (const ch of lines[i]!) depth += ch === '(' || ch === '[' ? 1 : ch === ')' || ch === ']' ? -1 : 0;
      if (depth <= 0 && /:\s*(#.*)?$/.test(lines[i]!)) break;
    }
  }
  return lines
    .slice(i + 1)
    .join('\n')
    .replace(/("{3}|'{3})[\s\S]*?\1/g, '');
}

/**
 * LEAK_RUN-token windows of some token sequences, found by a rolling hash over token ids (tokens no source holds
 * end a run at once), each hit checked token by token: far cheaper than a string per window.
 */
class Windows {
  private readonly vocab = new Map<string, number>();
  private readonly seqs: { ids: Int32Array; tag: string }[] = [];
  private readonly byHash = new Map<number, { seq: number; at: number }[]>();
  private static readonly P = 1_000_003;
  private static readonly TOP = (() => {
    let x = 1;
    for (let i = 1; i < LEAK_RUN; i++) x = Math.imul(x, Windows.P);
    return x;
  })();

  add(tag: string, tokens: string[]): void {
    const ids = Int32Array.from(tokens, (t) => {
      let id = this.vocab.get(t);
      if (id === undefined) this.vocab.set(t, (id = this.vocab.size + 1));
      return id;
    });
    const seq = this.seqs.push({ ids, tag }) - 1;
    this.scan(ids, (at, h) => {
      const list = this.byHash.get(h);
      if (list) list.push({ seq, at });
      else this.byHash.set(h, [{ seq, at }]);
    });
  }

  get size(): number {
    return this.byHash.size;
  }

  /** Calls `hit(i, seq, at)` for every window of `tokens` at i equal to the window of source `seq` at `at`. */
  find(tokens: string[], hit: (i: number, tag: string, at: number) => boolean | void): void {
    if (!this.byHash.size) return;
    const ids = Int32Array.from(tokens, (t) => this.vocab.get(t) ?? 0);
    this.scan(ids, (i, h) => {
      for (const c of this.byHash.get(h) ?? []) {
        const src = this.seqs[c.seq]!.ids;
        let same = true;
        for (let k = 0; k < LEAK_RUN && same; k++) same = src[c.at + k] === ids[i + k];
        if (same && hit(i, this.seqs[c.seq]!.tag, c.at) === false) return false;
      }
      return true;
    });
  }

  /** Rolling hash of every window free of unknown tokens (id 0); `each` returning false stops the scan. */
  private scan(ids: Int32Array, each: (at: number, h: number) => boolean | void): void {
    let h = 0;
    let run = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (id === 0) {
        run = 0;
        h = 0;
        continue;
      }
      if (run === LEAK_RUN) h = (h - Math.imul(ids[i - LEAK_RUN]!, Windows.TOP)) | 0;
      else run++;
      h = (Math.imul(h, Windows.P) + id) | 0;
      if (run === LEAK_RUN && each(i - LEAK_RUN + 1, h) === false) return;
    }
  }
}

/** Audits kept evidence; returns the suspects, and (policy `drop`) marks each dropped. */
export function auditLeaks(evidence: Evidence[], sources: LeakSources, policy: 'drop' | 'flag'): LeakSuspect[] {
  // LEAK_RUN-token windows of the tests' assertions (any shared run is suspect), and of the reference's body with
  // their positions (a shared run is suspect when the shared runs cover at least REFERENCE_COVER of the body: a
  // copy, not a sibling function that shares a loop header with it).
  const answers = answerLines(sources.tests, sources.targetName);
  const windows = new Windows();
  for (const [where, text] of answers) windows.add(`tests ${where}`, tokensOf(text));
  const refTokens = sources.reference ? tokensOf(referenceBody(sources.reference)) : [];
  if (refTokens.length >= LEAK_RUN) windows.add('reference', refTokens);
  const literals = assertedLiterals(answers, `${sources.reference ?? ''}\n${sources.requirement}`, sources.targetName);
  const suspects: LeakSuspect[] = [];
  // One item can come from several sources with different texts (an API entry's description, its unit's code): every
  // text is checked, and a hit on any of them makes the item suspect.
  // (The same item from the same source has the same text: it is checked once.)
  const seen = new Set<string>();
  const suspectKeys = new Set<string>();
  for (const e of evidence) {
    const k = `${e.key}|${e.source}`;
    if (!e.kept || seen.has(k) || suspectKeys.has(e.key)) continue;
    seen.add(k);
    let hit: LeakSuspect | null = null;
    const t = windows.size ? tokensOf(e.text) : [];
    // Which of the reference's tokens shared runs cover (made on the first shared run).
    const ref: { covered: Uint8Array | null } = { covered: null };
    let first = -1;
    const match = (i: number) =>
      t
        .slice(i, i + LEAK_RUN)
        .join(' ')
        .slice(0, 300);
    windows.find(t, (i, tag, at) => {
      if (tag !== 'reference') {
        hit = { key: e.key, title: e.title, against: tag, kind: 'token-run', match: match(i) };
        return false;
      }
      if (first < 0) first = i;
      (ref.covered ??= new Uint8Array(refTokens.length)).fill(1, at, at + LEAK_RUN);
    });
    if (!hit && ref.covered && ref.covered.reduce((n, c) => n + c, 0) >= REFERENCE_COVER * refTokens.length) {
      hit = { key: e.key, title: e.title, against: 'reference', kind: 'token-run', match: match(first) };
    }
    if (!hit) {
      for (const [lit, where] of literals) {
        if (e.text.includes(lit)) {
          hit = { key: e.key, title: e.title, against: `tests ${where}`, kind: 'asserted-value', match: lit.slice(0, 300) };
          break;
        }
      }
    }
    if (!hit) continue;
    suspectKeys.add(e.key);
    suspects.push(hit);
  }
  const bad = new Map(suspects.map((s) => [s.key, s]));
  for (const e of evidence) {
    const s = bad.get(e.key);
    if (!s) continue;
    e.leak = { against: s.against, kind: s.kind, match: s.match };
    if (policy === 'drop' && e.kept) {
      e.kept = false;
      e.droppedAt = 'leak';
      e.reason = `leak suspect (${s.kind === 'token-run' ? `${LEAK_RUN}+ tokens shared with the ${s.against}` : `a value the ${s.against} assert`}): dropped`;
    }
  }
  return suspects;
}
