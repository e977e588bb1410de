// Issue 29's leakage audit: every kept evidence item is compared with the reference's body and the assertions of the
// tests that name the target. A planted copy of the reference under another name and docstring (which no mask
// catches) and an item holding a value the tests expect are suspects; the sample repository has none after masking.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Evidence } from '../../main/model/trace.ts';
import { answerLines, assertedLiterals, auditLeaks } from '../../main/retrieve/leak-audit.ts';
import { cli } from '../helpers/cli.ts';
import { evidenceItem } from '../helpers/evidence.ts';
import { readJsonl } from '../validate/helpers.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SAMPLE = path.join(ROOT, 'resources', 'sample-repo', 'tasks.jsonl');
const dir = tmpDir('oc-leak-audit-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const REFERENCE = `def human_size(value: float, binary: bool = False) -> str:
    """Format a byte count."""
    size = float(value)
    base = 1024 if binary else 1000
    prefixes = ["KiB" if binary else "kB", "MiB" if binary else "MB", "GiB" if binary else "GB"]
    if size == 1:
        return "1 Byte"
    if size < base:
        return f"{int(size)} Bytes"
    for i, prefix in enumerate(prefixes):
        unit = base ** (i + 2)
        if size < unit:
            return f"{base * size / unit:.1f} {prefix}"
    return f"{base * size / unit:.1f} {prefix}"
`;

const TESTS = `import pytest
from sizes import human_size

SIZES = [1, 1000]

def test_human_size_binary():
    assert human_size(1000000, True) == "976.6 KiB"

def test_other():
    assert other(3) == "nothing to see"
`;

const item = (key: string, text: string, extra: Partial<Evidence> = {}): Evidence =>
  evidenceItem({ key, text, endLine: 9, r: 0.9, w: 0.3, u: 0.1, reason: 'kept', ...extra });

describe('the leakage audit', () => {
  const sources = {
    reference: REFERENCE,
    tests: [['tests/test_sizes.py', TESTS]] as [string, string][],
    requirement: 'Format a byte count as text.',
    targetName: 'human_size',
  };

  it('flags a copy of the reference with another name and docstring, and an item holding a value the tests expect', () => {
    const copy = REFERENCE.replace('def human_size', 'def example_size').replace('Format a byte count.', 'A docs example.');
    const docs = 'Examples:\n    >>> fmt(1000000, binary=True)\n    "976.6 KiB"\n';
    const plain = 'def add(a, b):\n    return a + b\n';
    const ev = [item('unit:1', copy), item('chunk:2', docs), item('unit:3', plain), item('api:1', 'example_size(value, binary) — a short API description')];
    // The same unit found by another source with its full code (an API entry's short text first): any text counts.
    ev.push(item('api:1', copy, { source: 'api' }));
    const suspects = auditLeaks(ev, sources, 'drop');
    expect(suspects.map((s) => [s.key, s.kind, s.against])).toEqual([
      ['unit:1', 'token-run', 'reference'],
      ['chunk:2', 'asserted-value', 'tests tests/test_sizes.py'],
      ['api:1', 'token-run', 'reference'],
    ]);
    expect(ev.filter((e) => !e.kept).map((e) => e.droppedAt)).toEqual(['leak', 'leak', 'leak', 'leak']);
    expect(ev.find((e) => e.key === 'unit:3')!.kept).toBe(true);
    expect(ev[0]!.reason).toMatch(/leak suspect .*reference/);
  });

  it('flag keeps the suspects and marks them; the signature, inputs and other targets’ tests are not answers', () => {
    const ev = [item('unit:1', REFERENCE.replace('Format a byte count.', 'Other words.'))];
    expect(auditLeaks(ev, sources, 'flag')).toHaveLength(1);
    expect(ev[0]!.kept).toBe(true);
    expect(ev[0]!.leak?.kind).toBe('token-run');
    // The signature alone (the prompt shows it anyway) is not a run of the reference's body.
    expect(auditLeaks([item('u', `${REFERENCE.split('\n')[0]}\n    ...\n`)], sources, 'drop')).toEqual([]);
    const answers = answerLines(sources.tests, 'human_size');
    expect(answers.map((a) => a[1])).toEqual(['    assert human_size(1000000, True) == "976.6 KiB"']);
    expect([...assertedLiterals(answers, REFERENCE).keys()]).toEqual(['976.6 KiB']);
  });

  it('finds no suspect on the sample repository after masking, and says so in the CLI', async () => {
    const db = await copyIndexedSample(path.join(dir, 's.db'));
    const ids = readJsonl<{ id: string }>(SAMPLE).map((t) => t.id);
    for (const id of ids) {
      const r = await cli(['retrieve', '--manifest', SAMPLE, '--id', id, '--db', db, '--quiet', '--json']);
      expect(r.code, r.err.join('\n')).toBe(0);
      const leak = r.json().trace.leak;
      expect(leak.policy).toBe('drop');
      expect(leak.against).toEqual(expect.arrayContaining(['reference', expect.stringMatching(/^tests tests\/test_/)]));
      expect(leak.suspects, id).toEqual([]);
    }
    const text = await cli(['retrieve', '--manifest', SAMPLE, '--id', ids[0]!, '--db', db, '--quiet']);
    expect(text.out.join('\n')).toMatch(/Leak audit \(drop\): leak suspects: 0 of \d+ items, compared with reference, tests tests\/test_/);
    const bad = await cli(['retrieve', '--manifest', SAMPLE, '--id', ids[0]!, '--db', db, '--quiet', '--leak-policy', 'maybe', '--json']);
    expect(bad.code).toBe(2);
  }, 240_000);
});
