// `opencoder runs` tells runs apart: a label made when the run is frozen (task or manifest, methods, backend),
// columns for label, task / manifest, methods, backend, created and status, a rename (`--rename RUN --label TEXT`,
// an empty label going back to the automatic one), and a run stored before labels existed shown with the label
// computed from what it stored. Also the index summary's counts (main/model/index-counts.ts).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { OFFLINE_LABEL } from '../../main/model/backend-label.ts';
import { Store } from '../../main/store/store.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SAMPLE = path.join(ROOT, 'resources', 'sample-repo', 'tasks.jsonl');
const dir = tmpDir('oc-runs-labels-');
const db = path.join(dir, 'w.db');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('opencoder runs: labels and columns', () => {
  let runId: string;
  const oldId = 'run-20250101T000000-aaaaaa';

  beforeAll(async () => {
    await copyIndexedSample(db);
    const r = await cli(['run', '--manifest', SAMPLE, '--ids', 'inventory/add_tax', '--method', 'baseline-rag,opencoder', '--db', db, '--json']);
    expect(r.code, r.err.join('\n')).toBe(0);
    runId = r.json().runId;
    // A run as a release before labels stored it: no label column value.
    const store = Store.open(db);
    try {
      store.experiments.create({
        id: oldId,
        kind: 'run',
        manifestFile: SAMPLE,
        manifestHash: 'h',
        taskIds: ['inventory/add_tax', 'inventory/apply_discount'],
        conditions: [{ id: 'opencoder' }],
        backend: { kind: 'offline', model: null },
        provenance: {},
        options: {},
      });
      store.experiments.finish(oldId, 'done');
    } finally {
      store.close();
    }
  }, 240_000);

  it('a new run is stored with its automatic label: task, methods, backend', async () => {
    const runs = (await cli(['runs', '--db', db, '--json'])).json().runs as Record<string, unknown>[];
    const run = runs.find((r) => r.id === runId)!;
    expect(run.label).toBe(`inventory/add_tax · baseline-rag, opencoder · ${OFFLINE_LABEL}`);
    expect(run.label).toBe(run.autoLabel);
    expect(run.subject).toBe('inventory/add_tax (tasks.jsonl)');
    expect(run.backendLabel).toBe(OFFLINE_LABEL);
    const store = Store.open(db, { readonly: true });
    try {
      expect(store.experiments.get(runId)!.label).toBe(run.label);
    } finally {
      store.close();
    }
  });

  it('lists label, task / manifest, methods, backend, created and status as columns', async () => {
    const r = await cli(['runs', '--db', db]);
    expect(r.code).toBe(0);
    const [head, ...rows] = r.out;
    expect(head!.split(/\s{2,}/)).toEqual(['LABEL', 'TASK / MANIFEST', 'METHODS', 'BACKEND', 'CREATED', 'STATUS', 'RESULTS', 'ID']);
    const row = rows.find((l) => l.includes(runId))!;
    expect(row).toContain('inventory/add_tax (tasks.jsonl)');
    expect(row).toContain('baseline-rag,opencoder');
    expect(row).toMatch(/ done /);
    expect(row).toContain('2/2');
    // Every column starts where its header does.
    for (const h of ['TASK / MANIFEST', 'STATUS', 'ID']) {
      const at = head!.indexOf(h);
      expect(row[at - 1], h).toBe(' ');
      expect(row[at], h).not.toBe(' ');
    }
  });

  it('a run stored before labels existed shows the automatic label computed from what it stored', async () => {
    const runs = (await cli(['runs', '--db', db, '--json'])).json().runs as Record<string, unknown>[];
    const old = runs.find((r) => r.id === oldId)!;
    expect(old.label).toBe(`tasks.jsonl (2 tasks) · opencoder · ${OFFLINE_LABEL}`);
    expect(old.subject).toBe('tasks.jsonl · 2 tasks');
    expect((await cli(['runs', '--db', db])).out.find((l) => l.includes(oldId))).toContain('tasks.jsonl (2 tasks) · opencoder');
  });

  it('--rename names a run, an empty --label goes back to the automatic one, and a wrong id is named', async () => {
    const renamed = await cli(['runs', '--rename', runId, '--label', 'add_tax, first try', '--db', db]);
    expect(renamed.code, renamed.err.join('\n')).toBe(0);
    expect(renamed.out.join('\n')).toContain(`Run ${runId} is now labelled "add_tax, first try"`);
    const row = (await cli(['runs', '--db', db])).out.find((l) => l.includes(runId))!;
    expect(row.startsWith('add_tax, first try ')).toBe(true);
    const back = await cli(['runs', '--rename', runId, '--label', '', '--db', db, '--json']);
    expect(back.json().renamed.label).toBe(`inventory/add_tax · baseline-rag, opencoder · ${OFFLINE_LABEL}`);
    const wrong = await cli(['runs', '--rename', 'run-nope', '--label', 'x', '--db', db]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.err.join('\n')).toContain('no experiment run run-nope');
    const noLabel = await cli(['runs', '--rename', runId, '--db', db]);
    expect(noLabel.code).not.toBe(0);
    expect(noLabel.err.join('\n')).toContain('--rename needs --label TEXT');
  });
});

describe('opencoder index: one definition of each count', () => {
  it('the embed progress ends at the texts this run embedded, and the summary counts the repository the same way', async () => {
    const repo = path.join(dir, 'repo');
    fs.mkdirSync(path.join(repo, 'pkg'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'pkg', 'a.py'), 'class A:\n    def m(self):\n        return 1\n\n\ndef f(x):\n    return x + 1\n');
    fs.writeFileSync(path.join(repo, 'notes.txt'), 'not code\n');
    const file = path.join(dir, 'counts.db');
    const r = await cli(['index', repo, '--db', file]);
    expect(r.code, r.err.join('\n')).toBe(0);
    const embed = r.err.filter((l) => l.startsWith('[embed] '));
    const last = /^\[embed\] (\d+)\/(\d+) {2}(\d+) of (\d+) texts? embedded in this run/.exec(embed.at(-1) ?? '');
    expect(last, embed.join('\n')).not.toBeNull();
    const text = r.out.join('\n');
    const thisRun = /(\d+) of \1 texts? embedded in this run/.exec(text.split('\n').find((l) => l.startsWith('This run:'))!);
    expect(thisRun).not.toBeNull();
    expect(last![1]).toBe(thisRun![1]);
    expect(last![2]).toBe(thisRun![1]);
    // A first index embeds every text the repository holds: the run's count is the repository's.
    expect(text).toMatch(
      new RegExp(
        `In the repository: 1 code file indexed · 1 other file \\(no supported language\\) · nothing skipped; ${thisRun![1]} of ${thisRun![1]} texts embedded`,
      ),
    );
    const again = await cli(['index', repo, '--db', file]);
    expect(again.out.join('\n')).toContain('0 of 0 texts embedded in this run');
    expect(again.out.join('\n')).toContain(`${thisRun![1]} of ${thisRun![1]} texts embedded`);
    const status = await cli(['status', '--db', file]);
    expect(status.out.join('\n')).toContain(
      `1 code file indexed · 1 other file (no supported language) · nothing skipped; ${thisRun![1]} of ${thisRun![1]} texts embedded`,
    );
  }, 120_000);
});
