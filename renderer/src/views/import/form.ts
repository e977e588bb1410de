// The Import view's form as data: the kinds of import, the fields, the request the fields make (or the problems by
// field), and the output field's default, which follows the kind and input until the analyst writes their own.

import { useEffect } from 'react';
import { PathSchema, type CallOutput } from '../../api/contract.ts';
import { engine } from '../../store.ts';

export type Kind = 'repoexec' | 'codereval' | 'execrepobench' | 'samples';
export type Summary = CallOutput<'import.result'>;

interface KindInfo {
  label: string;
  input: string;
  placeholder: string;
  hint: string;
}

export const KINDS: Record<Kind, KindInfo> = {
  repoexec: {
    label: 'RepoExec',
    input: 'RepoExec folder',
    placeholder: '/path/to/bench/repoexec',
    hint: 'the staged folder with repoexec_inline.jsonl and data_with_test_case/: each project is rebuilt from the raw rows, one task per RepoExec-inline task',
  },
  codereval: {
    label: 'CoderEval',
    input: 'CoderEval folder',
    placeholder: '/path/to/bench/codereval',
    hint: 'the staged folder with CoderEval-Input4Models/; records and test templates make tasks runnable',
  },
  execrepobench: {
    label: 'ExecRepoBench',
    input: 'Records file',
    placeholder: '/path/to/exec_repo_bench.jsonl',
    hint: 'ExecRepoBench records, one JSON object a line; each runnable record becomes a repository and a task',
  },
  samples: {
    label: 'Sample set',
    input: 'Published file or folder',
    placeholder: '/path/to/phi-2-results',
    hint: "another system's generations with their official labels: a RepoExec results folder, CoderEval *_out.jsonl, bigcode, EvalPlus",
  },
};

export const ORDER: Kind[] = ['repoexec', 'codereval', 'execrepobench', 'samples'];

/** Form fields an error can be shown beside (the engine's issue paths). */
export const FIELDS = ['path', 'out', 'subset', 'records', 'templates'] as const;
export type FieldName = (typeof FIELDS)[number];

export interface FormFields {
  kind: Kind;
  path: string;
  out: string;
  subset: string;
  records: string;
  templates: string;
  docstrings: 'raw' | 'human';
  format: 'auto' | 'repoexec' | 'codereval' | 'bigcode' | 'evalplus';
}

/** The call and its input for the fields, or the problems by field. */
export function requestOf(f: FormFields, outEdited: boolean) {
  const errors: Partial<Record<FieldName, string>> = {};
  const path = (name: FieldName, value: string, required: boolean): string | undefined => {
    const v = value.trim();
    if (!v && !required) return undefined;
    const p = PathSchema.safeParse(v);
    if (!p.success) errors[name] = p.error.issues[0]?.message ?? 'not a valid path';
    return v;
  };
  const input = path('path', f.path, true);
  const out = outEdited ? path('out', f.out, true) : undefined;
  if (f.kind === 'samples') return { errors, call: 'import.samples' as const, input: { path: input ?? '', format: f.format, ...(out ? { out } : {}) } };
  const records = f.kind === 'codereval' ? path('records', f.records, false) : undefined;
  const templates = f.kind === 'codereval' ? path('templates', f.templates, false) : undefined;
  const subset = f.kind === 'repoexec' && f.subset.trim() ? f.subset.trim() : undefined;
  return {
    errors,
    call: 'import.benchmark' as const,
    input: {
      kind: f.kind,
      path: input ?? '',
      ...(out ? { out } : {}),
      ...(subset ? { subset } : {}),
      ...(records ? { records } : {}),
      ...(templates ? { templates } : {}),
      ...(f.kind === 'codereval' ? { docstrings: f.docstrings } : {}),
    },
  };
}

/** The output field: the engine's default for the kind and input, until the analyst writes their own. */
export function useDefaultOut(kind: Kind, input: string, subset: string, edited: boolean, setOut: (v: string) => void) {
  useEffect(() => {
    if (edited) return;
    let stale = false;
    const timer = setTimeout(() => {
      const req = { kind, ...(input.trim() ? { input: input.trim() } : {}), ...(kind === 'repoexec' && subset.trim() ? { subset: subset.trim() } : {}) };
      engine()
        .call('import.defaults', req)
        .then((d) => {
          if (!stale) setOut(d.out);
        })
        .catch(() => {
          /* the field stays as it was; the import itself picks the default */
        });
    }, 150);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [kind, input, subset, edited, setOut]);
}
