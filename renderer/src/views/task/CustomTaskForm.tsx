// A task written by hand: repository folder, file, qualified name, signature, requirement and test command, kept
// as a draft between visits (custom-draft.ts) and checked before it runs.

import { useEffect, useState } from 'react';
import { CustomTaskSchema, type CustomTask } from '../../api/contract.ts';
import { Field, Section } from '../../components/ui.tsx';
import { useApp } from '../../store.ts';
import { loadCustomDraft, saveCustomDraft, withDefaultFolder, workingRepoRoot, type CustomDraft } from './custom-draft.ts';
import { RunControls } from './RunControls.tsx';

export function CustomIntro() {
  return (
    <Section title="Write a task" testId="custom-intro">
      <p className="small">
        Describe a function the repository should have: where it goes (file and qualified name), its signature, what it must do, and the command that tests it.
        The repository is indexed first if it is not yet.
      </p>
      <p className="small muted">The target is masked from retrieval if it already exists, so the generator cannot copy it.</p>
    </Section>
  );
}

const CUSTOM_FIELDS: { key: keyof CustomTask; label: string; placeholder: string; multiline?: boolean; mono?: boolean }[] = [
  { key: 'repo', label: 'Repository folder', placeholder: '/home/you/projects/my-repo', mono: true },
  { key: 'file', label: 'File (relative to the repository)', placeholder: 'pkg/module.py', mono: true },
  { key: 'qualname', label: 'Qualified name', placeholder: 'Class.method or function', mono: true },
  { key: 'signature', label: 'Signature', placeholder: 'def apply_discount(amount: Money, percent: float) -> Money:', mono: true, multiline: true },
  { key: 'requirement', label: 'Requirement', placeholder: 'What the function must do, in plain words.', multiline: true },
  { key: 'test_command', label: 'Test command (run from the repository root)', placeholder: 'python3 -m unittest tests.test_module', mono: true },
];

type FieldErrors = Partial<Record<keyof CustomTask, string>>;

/** Field errors from schema issues (the form's own check, or the engine's answer naming `custom.<field>`). */
function fieldErrors(issues: readonly { path: readonly PropertyKey[] | string; message: string }[]): FieldErrors {
  const errs: FieldErrors = {};
  for (const i of issues) {
    const parts = typeof i.path === 'string' ? i.path.split('.') : i.path.map(String);
    const k = (parts[0] === 'custom' ? parts[1] : parts[0]) as keyof CustomTask | undefined;
    if (k && CUSTOM_FIELDS.some((f) => f.key === k) && !errs[k]) errs[k] = i.message;
  }
  return errs;
}

/** The written task's draft, kept per repository folder; `working` is the folder it follows until one is typed. */
function useCustomDraft() {
  const info = useApp((s) => s.info.data);
  const repos = useApp((s) => s.repos.data);
  const selectedRepoId = useApp((s) => s.selectedRepoId);
  // The folder a draft follows until the analyst types one: the repository they work on, else the sample.
  const working = workingRepoRoot(repos, selectedRepoId) ?? info?.sampleRepo ?? '';
  const sample = info?.sampleRepo;
  // The draft survives a reload: kept in localStorage per repository folder (custom-draft.ts).
  const [values, setValuesState] = useState<CustomDraft>(() => withDefaultFolder(loadCustomDraft(window.localStorage, ''), working, sample));
  const setValues = (next: CustomDraft) => {
    setValuesState(next);
    saveCustomDraft(window.localStorage, next);
  };
  useEffect(() => {
    // app.info and repo.list answer after the form opens, and another repository may be indexed or chosen meanwhile.
    setValuesState((v) => withDefaultFolder(v, working, sample));
  }, [working, sample]);
  return { values, setValues, working, sample };
}

export function CustomTaskForm() {
  const { values, setValues, working, sample } = useCustomDraft();
  const [errors, setErrors] = useState<FieldErrors>({});
  const change = (key: keyof CustomTask, value: string) => {
    setValues({ ...values, [key]: value, ...(key === 'repo' ? { repoTyped: value.trim() !== '' } : {}) });
    if (errors[key]) setErrors({ ...errors, [key]: undefined });
  };
  const validate = (): CustomTask | null => {
    const input = Object.fromEntries(CUSTOM_FIELDS.map(({ key }) => [key, key === 'requirement' || key === 'signature' ? values[key] : values[key].trim()]));
    const r = CustomTaskSchema.safeParse(input);
    if (r.success) {
      setErrors({});
      return r.data;
    }
    setErrors(fieldErrors(r.error.issues));
    return null;
  };
  return (
    <form className="custom-form" data-testid="custom-task-form" onSubmit={(e) => e.preventDefault()} noValidate>
      {CUSTOM_FIELDS.map((f) => (
        <Field
          key={f.key}
          label={f.label}
          error={errors[f.key] ?? null}
          testId={`custom-field-${f.key}`}
          hint={
            f.key === 'repo' && working && values.repo !== working ? (
              <button
                type="button"
                className="link-btn"
                onClick={() => setValues({ ...values, repo: working, repoTyped: false })}
                data-testid="custom-use-working-repo"
              >
                Use {working === sample ? 'the sample repository' : <span className="mono">{working}</span>}
              </button>
            ) : null
          }
        >
          {(id, d) =>
            f.multiline ? (
              <textarea
                id={id}
                aria-describedby={d}
                aria-invalid={!!errors[f.key]}
                className={`input textarea ${f.mono ? 'mono' : ''}`}
                rows={f.key === 'requirement' ? 5 : 2}
                value={values[f.key]}
                placeholder={f.placeholder}
                onChange={(e) => change(f.key, e.target.value)}
                data-testid={`custom-${f.key}`}
              />
            ) : (
              <input
                id={id}
                aria-describedby={d}
                aria-invalid={!!errors[f.key]}
                className={`input ${f.mono ? 'mono' : ''}`}
                value={values[f.key]}
                placeholder={f.placeholder}
                onChange={(e) => change(f.key, e.target.value)}
                data-testid={`custom-${f.key}`}
                spellCheck={false}
              />
            )
          }
        </Field>
      ))}
      <RunControls req={{}} validate={validate} onIssues={(issues) => setErrors(fieldErrors(issues))} />
    </form>
  );
}
