// The words a skipped file's reason prints as (main/model/skip-reasons.ts): every reason the walk records has a
// phrase, a size skip names its actual limit, and counts read as one line — one table for the UI and the CLI.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { walkRepository } from '../../main/index/walk.ts';
import { DEFAULT_MAX_FILE_BYTES, SKIP_REASONS, sizeText, skipCountsText, skipDetailText, skipReasonText } from '../../main/model/skip-reasons.ts';

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

describe('skip reasons in words', () => {
  it('gives every reason a phrase of its own, none of them the raw key', () => {
    const phrases = SKIP_REASONS.map((r) => skipReasonText(r));
    for (const [i, r] of SKIP_REASONS.entries()) {
      // Examples in brackets may name folders (node_modules); the phrase's own words are words.
      expect(phrases[i]!.replace(/\(.*\)/, ''), r).not.toContain('_');
      expect(phrases[i], r).not.toBe(r);
    }
    expect(new Set(phrases).size).toBe(SKIP_REASONS.length);
  });

  it('says how large a too-large file may be: the default 1 MiB, or the limit its detail records', () => {
    expect(DEFAULT_MAX_FILE_BYTES).toBe(1024 * 1024);
    expect(skipReasonText('too_large')).toBe('larger than the 1 MiB limit');
    expect(skipReasonText('too_large', '5000000 bytes > limit 2097152')).toBe('larger than the 2 MiB limit');
    expect(skipReasonText('too_large', '2406 bytes > limit 2000')).toBe('larger than the 2 KiB limit');
    expect(skipReasonText('too_large', '900 bytes > limit 512')).toBe('larger than the 512 bytes limit');
  });

  it('sizes read as a person writes them', () => {
    expect(sizeText(1024 * 1024)).toBe('1 MiB');
    expect(sizeText(1.5 * 1024 * 1024)).toBe('1.5 MiB');
    expect(sizeText(512 * 1024)).toBe('512 KiB');
    expect(sizeText(1)).toBe('1 byte');
  });

  it("rewrites a size skip's detail in MiB and leaves other details as written", () => {
    expect(skipDetailText('too_large', '2411724 bytes > limit 1048576')).toBe('2.3 MiB (2,411,724 bytes)');
    expect(skipDetailText('generated', 'header says "auto-generated"')).toBe('header says "auto-generated"');
    expect(skipDetailText('binary', null)).toBe('');
  });

  it('reads a key it does not know as words rather than failing', () => {
    expect(skipReasonText('some_new-reason')).toBe('some new reason');
  });

  it('counts by reason, most first, in words', () => {
    expect(skipCountsText({ too_large: 1, generated: 3, binary: 1 })).toBe('generated code (3); binary data (1); larger than the 1 MiB limit (1)');
    expect(skipCountsText({})).toBe('none');
    expect(skipCountsText({ binary: 0 }, 'nothing')).toBe('nothing');
  });

  it('has a phrase for each reason a real walk records, with the limit the walk used', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skip-words-'));
    made.push(root);
    fs.writeFileSync(path.join(root, 'small.py'), 'x = 1\n');
    fs.writeFileSync(path.join(root, 'big.py'), `x = "${'a'.repeat(3000)}"\n`);
    fs.writeFileSync(path.join(root, 'blob.py'), Buffer.from([0x78, 0, 0, 0x79]));
    fs.mkdirSync(path.join(root, 'node_modules'));
    fs.writeFileSync(path.join(root, 'node_modules', 'dep.js'), 'module.exports = 1;\n');
    const r = await walkRepository(root, { maxFileBytes: 2048 });
    const words = Object.fromEntries(r.skipped.map((s) => [s.relPath, skipReasonText(s.reason, s.detail)]));
    expect(words).toEqual({
      'big.py': 'larger than the 2 KiB limit',
      'blob.py': 'binary data',
      node_modules: 'installed dependencies (node_modules, site-packages, …)',
    });
  });
});
