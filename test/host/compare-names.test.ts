// `opencoder compare` of two runs of the same method (issue 17, item 2): every row and comparison names
// its run (id and label), so "Baseline RAG vs Baseline RAG" can be told apart.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../main/host/cli/main.ts';
import { sampleRepoPath } from '../../main/host/paths.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const dir = tmpDir('oc-compare-names-');
const db = path.join(dir, 'w.db');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** One CLI command on this test's database: exit code, stdout lines, stderr text. */
async function opencoder(...args: string[]): Promise<{ code: number; out: string[]; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...args, '--db', db], { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err: err.join('\n') };
}

describe('compare of two runs of one method', () => {
  const ids: string[] = [];

  beforeAll(async () => {
    await copyIndexedSample(db);
    for (let i = 0; i < 2; i++) {
      const r = await opencoder(
        'run',
        '--manifest',
        path.join(sampleRepoPath(), 'tasks.jsonl'),
        '--ids',
        'inventory/add_tax',
        '--method',
        'baseline-rag',
        '--json',
      );
      expect(r.code, r.err).toBe(0);
      ids.push(JSON.parse(r.out.at(-1)!).runId);
    }
  }, 240_000);

  it('names each run (id and label) and each row by its run', async () => {
    const listed = JSON.parse((await opencoder('runs', '--json')).out.at(-1)!).runs as { id: string; label: string | null }[];
    const label = (id: string) => listed.find((r) => r.id === id)!.label;
    expect(label(ids[0]!)).toBeTruthy();
    const r = await opencoder('compare', ids[0]!, ids[1]!);
    expect(r.code, r.err).toBe(0);
    const out = r.out.join('\n');
    for (const id of ids) {
      expect(out).toContain(`Run ${id}: ${label(id)}`);
      // The table's row for the method in this run, not two rows both called "Baseline RAG".
      expect(r.out.some((l) => l.startsWith(`Baseline RAG · ${id} `))).toBe(true);
    }
    expect(r.out.filter((l) => /^Baseline RAG\s{2,}/.test(l))).toEqual([]);
    expect(out).toContain(`Baseline RAG (${ids[0]}) vs Baseline RAG (${ids[1]}): 1 paired task`);
  });
});
