// The settings form: the generation backend and model, execution (sandbox, encoder, parallel tasks, queue) and the
// pipeline constants, checked before saving (settings/draft.ts); the engine's own objections are shown by field.

import { useEffect, useState } from 'react';
import { DEFAULT_MODELS, PIPELINE_DEFAULTS, type CallError, type Settings } from '../../api/contract.ts';
import { ErrorBox, Field, Section, SelectField, TextField } from '../../components/ui.tsx';
import { rovingKeyDown } from '../../components/roving.ts';
import { asCallError, engine, getStore } from '../../store.ts';
import { ModelPicker } from './ModelPicker.tsx';
import { BACKENDS, CONSTANTS, fromDraft, toDraft, type BackendChoiceUi, type Draft } from './draft.ts';

/** What each part of the settings form is given: the draft, the errors by field, and a way to change the draft. */
interface DraftProps {
  draft: Draft;
  errors: Record<string, string>;
  patch: (p: Partial<Draft>) => void;
}

export function SettingsForm({ initial }: { initial: Settings }) {
  const [draft, setDraft] = useState<Draft>(() => toDraft(initial));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saveError, setSaveError] = useState<CallError | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => setDraft(toDraft(initial)), [initial]);
  const patch = (p: Partial<Draft>) => {
    setDraft({ ...draft, ...p });
    setSaved(false);
  };

  const save = async () => {
    const r = fromDraft(draft);
    if (!r.ok) {
      setErrors(r.errors);
      return;
    }
    setErrors({});
    setSaveError(null);
    setBusy(true);
    try {
      const next = await engine().call('settings.set', r.value);
      getStore().setState({ settings: { status: 'ready', data: next, error: null } });
      setSaved(true);
    } catch (err) {
      const e = asCallError(err);
      const byField: Record<string, string> = {};
      for (const i of e.issues ?? [])
        byField[i.path.startsWith('backend.baseURL') ? 'baseURL' : i.path.startsWith('backend.model') ? 'model' : i.path] = i.message;
      setErrors(byField);
      setSaveError(e);
    } finally {
      setBusy(false);
    }
  };

  const parts: DraftProps = { draft, errors, patch };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      noValidate
      className="settings-form"
      data-testid="settings-form"
    >
      <BackendSection {...parts} />
      <ExecutionSection {...parts} />
      <PipelineSection {...parts} />
      <div className="save-bar">
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="settings-save">
          {busy ? 'Saving…' : 'Save settings'}
        </button>
        <button
          type="button"
          className="btn btn-quiet"
          onClick={() => {
            setDraft(toDraft(initial));
            setErrors({});
            setSaved(false);
          }}
          data-testid="settings-reset"
        >
          Discard changes
        </button>
        {saved ? (
          <span className="text-good small" role="status" data-testid="settings-saved">
            Saved.
          </span>
        ) : null}
        {Object.keys(errors).length ? <span className="text-bad small">Fix the marked fields.</span> : null}
      </div>
      <ErrorBox error={saveError} title="The engine did not accept the settings" />
    </form>
  );
}

function BackendSection({ draft, errors, patch }: DraftProps) {
  return (
    <Section title="Generation backend" testId="settings-backend">
      <div role="radiogroup" aria-label="Backend" className="backend-grid" onKeyDown={(e) => rovingKeyDown(e, 'both')}>
        {BACKENDS.map((b) => {
          const on = draft.backend === b.id;
          return (
            <button
              key={b.id}
              type="button"
              role="radio"
              aria-checked={on}
              tabIndex={on ? 0 : -1}
              data-roving
              className={`card-btn backend-opt ${on ? 'backend-opt-on' : ''}`}
              onClick={() => patch({ backend: b.id })}
              data-testid={`backend-${b.id}`}
            >
              <span className="backend-label">{b.label}</span>
              <span className="backend-note">{b.note}</span>
            </button>
          );
        })}
      </div>
      <div className="form-row">
        {draft.backend !== 'offline' ? (
          <TextField
            label={draft.backend === 'llama-cpp' ? 'Model file' : 'Model'}
            error={errors.model}
            hint={MODEL_HINT[draft.backend]}
            aria-invalid={!!errors.model}
            className="input input-wide mono"
            value={draft.model}
            onText={(v) => patch({ model: v })}
            data-testid="settings-model"
            spellCheck={false}
            placeholder={MODEL_PLACEHOLDER[draft.backend]}
          />
        ) : null}
        {draft.backend === 'local' ? (
          <TextField
            label="Base URL"
            error={errors.baseURL}
            aria-invalid={!!errors.baseURL}
            className="input input-wide mono"
            value={draft.baseURL}
            onText={(v) => patch({ baseURL: v })}
            placeholder="http://127.0.0.1:8080/v1"
            data-testid="settings-base-url"
            spellCheck={false}
          />
        ) : null}
      </div>
      {errors.backend ? <div className="field-error">{errors.backend}</div> : null}
      <ModelPicker current={draft} onChoose={(p) => patch(p)} />
    </Section>
  );
}

const MODEL_HINT: Record<BackendChoiceUi, string> = {
  offline: '',
  openai: 'empty: the backend’s default',
  gemini: 'empty: the backend’s default',
  local: 'as the server names it',
  'llama-cpp': 'a .gguf path, or a file name in the models folder',
};

const MODEL_PLACEHOLDER: Record<BackendChoiceUi, string> = {
  offline: '',
  openai: DEFAULT_MODELS.openai,
  gemini: DEFAULT_MODELS.gemini,
  local: 'qwen2.5-coder:7b',
  'llama-cpp': 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
};

const SANDBOXES: [Settings['sandbox'], string][] = [
  ['auto', 'auto'],
  ['strong', 'strong'],
  ['weak', 'weak'],
];
const ENCODERS: [Settings['encoder'], string][] = [
  ['auto', 'auto'],
  ['default', 'default'],
  ['unixcoder', 'unixcoder'],
];

const QUEUE_HINT = 'empty: run in this app; redis://127.0.0.1:6379 or rediss://host:port; password in OPENCODER_REDIS_PASSWORD; see docs/queue.md';

function ExecutionSection({ draft, errors, patch }: DraftProps) {
  return (
    <Section title="Execution" testId="settings-execution" className="settings-execution">
      <div className="form-row">
        <SelectField
          label="Sandbox"
          hint="strong: bubblewrap namespaces, no network, unprivileged uid; weak: resource limits only (labelled)"
          value={draft.sandbox}
          options={SANDBOXES}
          onPick={(sandbox) => patch({ sandbox })}
          testId="settings-sandbox"
        />
        <SelectField
          label="Encoder"
          hint="auto: UniXcoder when installed, else the bundled default"
          value={draft.encoder}
          options={ENCODERS}
          onPick={(encoder) => patch({ encoder })}
          testId="settings-encoder"
        />
        <TextField
          label="Parallel tasks"
          error={errors.parallel}
          hint="1 … 16"
          aria-invalid={!!errors.parallel}
          className="input input-num"
          inputMode="numeric"
          value={draft.parallel}
          onText={(v) => patch({ parallel: v })}
          data-testid="settings-parallel"
        />
      </div>
      <div className="form-row settings-queue">
        <TextField
          label="Queue (Redis URL)"
          error={errors.queue}
          hint={QUEUE_HINT}
          aria-invalid={!!errors.queue}
          className="input input-wide mono"
          value={draft.queue}
          onText={(v) => patch({ queue: v })}
          placeholder="empty: run in this app"
          data-testid="settings-queue"
          spellCheck={false}
          autoComplete="off"
        />
      </div>
    </Section>
  );
}

function PipelineSection({ draft, errors, patch }: DraftProps) {
  return (
    <Section
      title="Pipeline constants"
      subtitle="Empty fields keep the default. Budgets stay matched across methods: every method uses these."
      testId="settings-pipeline"
    >
      <div className="const-grid">
        {CONSTANTS.map((c) => (
          <Field
            key={c.key}
            label={
              <span>
                {c.label} <span className="muted mono">{c.symbol}</span>
              </span>
            }
            error={errors[`pipeline.${c.key}`]}
            hint={`${c.hint} · default ${PIPELINE_DEFAULTS[c.key]}`}
          >
            {(id, d) => (
              <input
                id={id}
                aria-describedby={d}
                aria-invalid={!!errors[`pipeline.${c.key}`]}
                className="input input-num tabular"
                inputMode="decimal"
                value={draft.pipeline[c.key]}
                placeholder={String(PIPELINE_DEFAULTS[c.key])}
                onChange={(e) => patch({ pipeline: { ...draft.pipeline, [c.key]: e.target.value } })}
                data-testid={`settings-${c.key}`}
              />
            )}
          </Field>
        ))}
      </div>
    </Section>
  );
}
