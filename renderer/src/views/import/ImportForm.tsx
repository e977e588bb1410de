// The Import view's form: what to import (a tab per kind), its input, the kind's own fields and the output.

import { useMemo, useState, type ReactNode } from 'react';
import type { CallError } from '../../api/contract.ts';
import { AllowHere } from '../../components/AllowHere.tsx';
import { ErrorBox, Field, SelectField, Section, Tabs, TextField } from '../../components/ui.tsx';
import { asCallError, engine, getStore } from '../../store.ts';
import { FIELDS, KINDS, ORDER, requestOf, useDefaultOut, type FieldName, type FormFields, type Kind } from './form.ts';

export function ImportForm({ onStarted }: { onStarted: (jobId: string) => void }) {
  const [f, setF] = useState<FormFields>({ kind: 'repoexec', path: '', out: '', subset: '', records: '', templates: '', docstrings: 'raw', format: 'auto' });
  const [outEdited, setOutEdited] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [error, setError] = useState<CallError | null>(null);
  const [starting, setStarting] = useState(false);
  const set = <K extends keyof FormFields>(k: K, v: FormFields[K]) => setF((x) => ({ ...x, [k]: v }));
  const setOut = useMemo(() => (v: string) => setF((x) => ({ ...x, out: v })), []);
  useDefaultOut(f.kind, f.path, f.subset, outEdited, setOut);
  const info = KINDS[f.kind];

  const start = async () => {
    const req = requestOf(f, outEdited);
    setErrors(req.errors);
    setError(null);
    if (Object.keys(req.errors).length) return;
    setStarting(true);
    try {
      const r = req.call === 'import.samples' ? await engine().call('import.samples', req.input) : await engine().call('import.benchmark', req.input);
      await getStore().getState().refreshJobs();
      onStarted(r.jobId);
    } catch (err) {
      const e = asCallError(err);
      const byField: Partial<Record<FieldName, string>> = {};
      for (const i of e.issues ?? []) if ((FIELDS as readonly string[]).includes(i.path)) byField[i.path as FieldName] = i.message;
      setErrors(byField);
      setError(e);
    } finally {
      setStarting(false);
    }
  };

  /** A refused path shown at its field gets "Allow this folder" there (then the import is tried again). */
  const allowAt = (name: FieldName) =>
    error?.code === 'forbidden-path' && error.issues?.some((i) => i.path === name) ? (
      <AllowHere error={error} onAllowed={() => void start()} testId={`import-${name}-allow`} />
    ) : null;
  const atField = error?.code === 'forbidden-path' && !!error.issues?.some((i) => (FIELDS as readonly string[]).includes(i.path));

  return (
    <Section title="Import" testId="import-form" subtitle="Pick what to import, its input and where the result goes.">
      <Tabs<Kind>
        label="What to import"
        value={f.kind}
        onChange={(k) => {
          set('kind', k);
          // Another kind writes elsewhere (a folder, or a set file): back to its default.
          setOutEdited(false);
          setErrors({});
          setError(null);
        }}
        idBase="import-kind"
        testId="import-kind"
        items={ORDER.map((k) => ({ id: k, label: KINDS[k].label, testId: `import-kind-${k}` }))}
      />
      <div className="tab-panel import-fields" role="tabpanel" id="import-kind-panel" aria-labelledby={`import-kind-tab-${f.kind}`}>
        <PathField
          name="path"
          label={info.input}
          error={errors.path}
          hint={info.hint}
          value={f.path}
          onText={(v) => set('path', v)}
          placeholder={info.placeholder}
        />
        {allowAt('path')}
        <KindFields f={f} set={set} errors={errors} allowAt={allowAt} />
        <OutField f={f} set={set} errors={errors} setErrors={setErrors} outEdited={outEdited} setOutEdited={setOutEdited} />
        {allowAt('out')}
        <div className="row gap">
          <button type="button" className="btn btn-primary" onClick={() => void start()} disabled={starting} data-testid="import-start">
            {starting ? 'Starting…' : `Import ${f.kind === 'samples' ? 'sample set' : info.label}`}
          </button>
        </div>
        {atField ? null : <ErrorBox error={error} title="Could not start the import" onAllowed={() => void start()} testId="import-error" />}
      </div>
    </Section>
  );
}

type SetField = <K extends keyof FormFields>(k: K, v: FormFields[K]) => void;
type Errors = Partial<Record<FieldName, string>>;

/** A path's field: the input is `import-<name>`. */
function PathField(props: {
  name: FieldName;
  label: string;
  error: string | undefined;
  hint: string;
  value: string;
  onText: (v: string) => void;
  placeholder: string;
}) {
  return (
    <TextField
      label={props.label}
      error={props.error ?? null}
      hint={props.hint}
      className="input input-wide mono"
      value={props.value}
      onText={props.onText}
      placeholder={props.placeholder}
      spellCheck={false}
      data-testid={`import-${props.name}`}
    />
  );
}

const DOCSTRINGS: [FormFields['docstrings'], string][] = [
  ['raw', 'the original docstrings'],
  ['human', 'the docstrings engineers rewrote'],
];
const FORMATS: [FormFields['format'], string][] = [
  ['auto', 'detect from the input'],
  ['repoexec', 'RepoExec results'],
  ['codereval', 'CoderEval *_out.jsonl'],
  ['bigcode', 'bigcode generations.json'],
  ['evalplus', 'EvalPlus samples.jsonl'],
];

/** The fields of one kind of import only. */
function KindFields({ f, set, errors, allowAt }: { f: FormFields; set: SetField; errors: Errors; allowAt: (name: FieldName) => ReactNode }) {
  return (
    <>
      {f.kind === 'repoexec' ? (
        <TextField
          label="Subset (optional)"
          error={errors.subset ?? null}
          hint="a subset named in repoexec_inline_subsets.json, such as python_string_utils_inline"
          className="input mono"
          value={f.subset}
          onText={(v) => set('subset', v)}
          placeholder="all RepoExec-inline tasks"
          spellCheck={false}
          data-testid="import-subset"
        />
      ) : null}
      {f.kind === 'codereval' ? (
        <>
          <PathField
            name="records"
            label="Records file (optional)"
            error={errors.records}
            hint="CoderEval4Python.json: reference code and file contents"
            value={f.records}
            onText={(v) => set('records', v)}
            placeholder="none"
          />
          {allowAt('records')}
          <PathField
            name="templates"
            label="Test templates folder (optional)"
            error={errors.templates}
            hint="<name>_<_id>.py files with the insertion marker"
            value={f.templates}
            onText={(v) => set('templates', v)}
            placeholder="none"
          />
          {allowAt('templates')}
          <SelectField label="Requirements from" value={f.docstrings} options={DOCSTRINGS} onPick={(v) => set('docstrings', v)} testId="import-docstrings" />
        </>
      ) : null}
      {f.kind === 'samples' ? <SelectField label="Format" value={f.format} options={FORMATS} onPick={(v) => set('format', v)} testId="import-format" /> : null}
    </>
  );
}

/** The output field: the default for the kind and input, until the analyst writes their own (then a way back). */
function OutField(props: {
  f: FormFields;
  set: SetField;
  errors: Errors;
  setErrors: (update: (x: Errors) => Errors) => void;
  outEdited: boolean;
  setOutEdited: (edited: boolean) => void;
}) {
  const { f, set, errors, setErrors, outEdited, setOutEdited } = props;
  return (
    <Field
      label={f.kind === 'samples' ? 'Sample set file' : 'Output folder'}
      error={errors.out ?? null}
      hint={
        outEdited ? (
          <button
            type="button"
            className="link-btn"
            onClick={() => {
              setOutEdited(false);
              setErrors((x) => ({ ...x, out: undefined }));
            }}
            data-testid="import-out-reset"
          >
            Back to the default in the app’s data folder
          </button>
        ) : f.kind === 'samples' ? (
          'in the app’s data folder, named after the input; an earlier import there is replaced'
        ) : (
          'a folder of its own in the app’s data folder; an earlier import of the same kind there is replaced'
        )
      }
    >
      {(id, d) => (
        <input
          id={id}
          aria-describedby={d}
          className="input input-wide mono"
          value={f.out}
          onChange={(e) => {
            setOutEdited(true);
            set('out', e.target.value);
          }}
          placeholder="default"
          spellCheck={false}
          data-testid="import-out"
        />
      )}
    </Field>
  );
}
