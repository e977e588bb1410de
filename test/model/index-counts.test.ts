// The one definition of each index count (main/model/index-counts.ts) and of a run's label (run-label.ts).

import { describe, expect, it } from 'vitest';
import {
  embeddableTexts,
  otherFilesOfRun,
  repositoryCounts,
  repositoryEmbeddedText,
  repositoryFilesText,
  runEmbeddedText,
  unitCount,
} from '../../main/model/index-counts.ts';
import { autoRunLabel, MAX_RUN_LABEL, runMethods, runSubject } from '../../main/model/run-label.ts';

const STATS = {
  files: { indexed: 27, partial: 1 },
  skipped: {},
  units: { module: 28, class: 30, function: 100, method: 134 },
  chunks: 60,
  apiEntries: 22,
  embedded: { unit: 234, chunk: 60, api: 22 },
};

describe('index counts', () => {
  it('a text to embed is a function or method unit, a context chunk or an API entry (modules and classes are not)', () => {
    const c = repositoryCounts(STATS, 1);
    expect(unitCount(c.units)).toBe(292);
    expect(embeddableTexts(c)).toBe(100 + 134 + 60 + 22);
    expect(c.embedded).toBe(316);
    expect(repositoryEmbeddedText(c)).toBe('316 of 316 texts embedded');
  });

  it('files: code files indexed (partial ones too), other files, skipped', () => {
    expect(repositoryFilesText(repositoryCounts(STATS, 1))).toBe('28 code files indexed · 1 other file (no supported language) · nothing skipped');
    expect(repositoryFilesText({ files: 1, otherFiles: 0, skipped: { generated: 2, too_large: 1 } })).toBe(
      '1 code file indexed · 0 other files (no supported language) · 3 skipped',
    );
    // Before any index run recorded its walk, the other files are unknown, not zero.
    expect(repositoryFilesText({ files: 2, otherFiles: null, skipped: {} })).toBe('2 code files indexed · nothing skipped');
  });

  it('a run counts what it embedded out of what it had to embed', () => {
    expect(runEmbeddedText(322, 322)).toBe('322 of 322 texts embedded in this run (new or changed)');
    expect(runEmbeddedText(1, 1)).toBe('1 of 1 text embedded in this run (new or changed)');
    expect(runEmbeddedText(1346, 2050)).toBe('1,346 of 2,050 texts embedded in this run (new or changed)');
  });

  it('the other files come from a stored run only when it recorded them', () => {
    expect(otherFilesOfRun({ files: { other: 3 } })).toBe(3);
    expect(otherFilesOfRun({ files: {} })).toBeNull();
    expect(otherFilesOfRun(null)).toBeNull();
    expect(otherFilesOfRun('garbage')).toBeNull();
  });
});

describe('run labels', () => {
  it('one task: the task id; several: the manifest file name and the task count; then methods and backend', () => {
    expect(autoRunLabel({ manifestFile: '/x/y/tasks.jsonl', taskIds: ['inv/add_tax'], conditions: ['opencoder'], backend: 'B' })).toBe(
      'inv/add_tax · opencoder · B',
    );
    expect(autoRunLabel({ manifestFile: 'C:\\b\\m.jsonl', taskIds: ['a', 'b'], conditions: ['x', 'y', 'z'], backend: 'B' })).toBe(
      'm.jsonl (2 tasks) · x, y, z · B',
    );
    expect(runMethods(['a', 'b', 'c', 'd', 'e'])).toBe('a, b +3 more');
    expect(runSubject({ manifestFile: '/m/t.jsonl', taskIds: ['a'] })).toBe('a (t.jsonl)');
    expect(runSubject({ manifestFile: '/m/t.jsonl', taskIds: ['a', 'b'] })).toBe('t.jsonl · 2 tasks');
  });

  it('a label never exceeds the limit run.rename accepts', () => {
    const long = autoRunLabel({ manifestFile: '/m.jsonl', taskIds: ['t'.repeat(300)], conditions: ['c'], backend: 'B' });
    expect(long.length).toBe(MAX_RUN_LABEL);
    expect(long.endsWith('…')).toBe(true);
  });
});
