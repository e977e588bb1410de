// The manifest's optional task_view and ground_truth_apis fields: how they resolve, round-trip and validate.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManifestError } from '../../main/model/manifest.ts';
import { readManifest, writeManifest } from '../../main/benchmarks/manifest-file.ts';
import type { TaskRecord } from '../../main/model/task.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function freshDir(): string {
  const d = tmpDir('oc-manifest-');
  cleanup.push(d);
  return d;
}

const base: TaskRecord = {
  id: 'RepoExec/0',
  repo: 'repos/python-string-utils',
  file: 'string_utils/manipulation.py',
  qualname: 'reverse',
  requirement: 'Returns the string with its chars reversed.',
  signature: 'def reverse(input_string: str) -> str:',
  check_template: '# <<FOCAL_FUNCTION>>\n',
};

const line = (o: Record<string, unknown>) => JSON.stringify(o);

describe('task_view', () => {
  it('resolves a relative task_view against the manifest file’s folder, like repo', () => {
    const dir = freshDir();
    const file = path.join(dir, 'sub', 'tasks.jsonl');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, [line({ ...base, task_view: 'views/RepoExec_0' }), line({ ...base, id: 'no-view' })].join('\n') + '\n');
    const [withView, without] = readManifest(file).tasks;
    expect(withView!.task_view).toBe('views/RepoExec_0');
    expect(withView!.taskViewPath).toBe(path.join(dir, 'sub', 'views', 'RepoExec_0'));
    expect(withView!.repoPath).toBe(path.join(dir, 'sub', 'repos', 'python-string-utils'));
    expect(without!.taskViewPath).toBeUndefined();
    expect('taskViewPath' in without!).toBe(false);
  });

  it('round-trips through writeManifest: taskViewPath is written as task_view relative to the manifest, never itself', () => {
    const dir = freshDir();
    const file = path.join(dir, 'out', 'tasks.jsonl');
    const m = writeManifest(
      file,
      [
        { ...base, repoPath: path.join(dir, 'out', 'repos', 'p'), taskViewPath: path.join(dir, 'out', 'views', 'RepoExec_0') },
        { ...base, id: 'given', task_view: 'views/given' },
        { ...base, id: 'outside', taskViewPath: path.join(dir, 'elsewhere', 'v') },
        { ...base, id: 'none' },
      ],
      { allow: [path.join(dir, 'elsewhere')] },
    );
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.task_view)).toEqual(['views/RepoExec_0', 'views/given', '../elsewhere/v', undefined]);
    for (const l of lines) {
      expect(l).not.toHaveProperty('taskViewPath');
      expect(l).not.toHaveProperty('repoPath');
    }
    expect(lines[0]!.repo).toBe('repos/p');
    expect(m.tasks.map((t) => t.taskViewPath)).toEqual([
      path.join(dir, 'out', 'views', 'RepoExec_0'),
      path.join(dir, 'out', 'views', 'given'),
      path.join(dir, 'elsewhere', 'v'),
      undefined,
    ]);
    // Without --allow for it, the view outside the manifest's folder is refused when the manifest is read.
    expect(() => readManifest(file)).toThrow(/tasks\.jsonl:3 \(task outside\): task_view \.\.\/elsewhere\/v resolves to .*, outside the manifest's folder/);
    // What readManifest gives back can be written again unchanged (the manifest moves with its folder).
    const again = path.join(dir, 'out', 'again.jsonl');
    writeManifest(again, m.tasks, { allow: [path.join(dir, 'elsewhere')] });
    expect(fs.readFileSync(again, 'utf8')).toBe(fs.readFileSync(file, 'utf8'));
  });

  it('rejects an empty task_view', () => {
    const dir = freshDir();
    const file = path.join(dir, 'tasks.jsonl');
    fs.writeFileSync(file, line({ ...base, task_view: '' }) + '\n');
    expect(() => readManifest(file)).toThrow(/tasks\.jsonl:1 \(task RepoExec\/0\): task_view/);
  });
});

describe('ground_truth_apis', () => {
  it('accepts module:qualname, dotted and bare names', () => {
    const dir = freshDir();
    const file = path.join(dir, 'tasks.jsonl');
    const apis = ['string_utils.validation:is_string', 'string_utils.errors.InvalidInputError', 'is_full_string'];
    fs.writeFileSync(file, line({ ...base, ground_truth_apis: apis }) + '\n');
    expect(readManifest(file).tasks[0]!.ground_truth_apis).toEqual(apis);
    // And writeManifest keeps them.
    const m = writeManifest(path.join(dir, 'copy.jsonl'), readManifest(file).tasks);
    expect(m.tasks[0]!.ground_truth_apis).toEqual(apis);
  });

  it('rejects an empty-string entry with a ManifestError naming the line', () => {
    const dir = freshDir();
    const file = path.join(dir, 'tasks.jsonl');
    fs.writeFileSync(file, [line({ ...base, id: 'ok' }), line({ ...base, ground_truth_apis: ['string_utils.validation:is_string', ''] })].join('\n') + '\n');
    let err: unknown;
    try {
      readManifest(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as ManifestError).line).toBe(2);
    expect((err as ManifestError).message).toMatch(/tasks\.jsonl:2 \(task RepoExec\/0\): ground_truth_apis\.1: must be a non-empty string/);
    // Whitespace only is no name either; nor is a non-string.
    fs.writeFileSync(file, line({ ...base, ground_truth_apis: ['  '] }) + '\n');
    expect(() => readManifest(file)).toThrow(/tasks\.jsonl:1 .*ground_truth_apis\.0/);
    fs.writeFileSync(file, line({ ...base, ground_truth_apis: [3] }) + '\n');
    expect(() => readManifest(file)).toThrow(ManifestError);
  });
});

describe('blank fields', () => {
  it('refuses an id, repo, file, qualname or signature of only spaces or blank lines, naming the line and the field', () => {
    const dir = freshDir();
    const file = path.join(dir, 'tasks.jsonl');
    for (const field of ['id', 'repo', 'file', 'qualname', 'signature'] as const) {
      fs.writeFileSync(file, line({ ...base, [field]: ' \n  ' }) + '\n');
      expect(() => readManifest(file), field).toThrow(new RegExp(`tasks\\.jsonl:1 .*${field}: is only spaces or blank lines`, 's'));
    }
    // An empty requirement stays a benchmark's own business (importers write one from the signature).
    fs.writeFileSync(file, line({ ...base, requirement: '' }) + '\n');
    expect(readManifest(file).tasks).toHaveLength(1);
  });
});
