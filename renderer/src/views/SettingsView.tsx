// Settings: the generation backend (no model — the retrieval-only baseline —, OpenAI, Gemini, an OpenAI-compatible
// local server, or a GGUF file run by llama.cpp), model, write-only API keys, sandbox, encoder, parallel tasks, the
// queue experiments run through (a Redis URL, checked by the engine when saved) and the pipeline constants, validated before saving; the model picker (GGUF files, detected local servers, hosted
// providers) is settings/ModelPicker.tsx, the price table settings/PricesSection.tsx.

import { useEffect, useState } from 'react';
import {
  BackendSchema,
  DEFAULT_MODELS,
  OFFLINE_LABEL,
  PIPELINE_DEFAULTS,
  PipelineOverridesSchema,
  SettingsSchema,
  type CallError,
  type PipelineOverrides,
  type Settings,
} from '../api/contract.ts';
import { Badge, ErrorBox, Field, Loading, Section } from '../components/ui.tsx';
import { rovingKeyDown } from '../components/roving.ts';
import { asCallError, engine, getStore, useApp } from '../store.ts';
import { ModelPicker, type BackendPick } from './settings/ModelPicker.tsx';
import { PricesSection } from './settings/PricesSection.tsx';
import './SettingsView.css';

type BackendChoiceUi = BackendPick['backend'];

const BACKENDS: { id: BackendChoiceUi; label: string; note: string }[] = [
  { id: 'offline', label: OFFLINE_LABEL, note: 'adapts retrieved code, no language model; no network, no cost — a baseline, for trying the pipeline' },
  { id: 'llama-cpp', label: 'GGUF model', note: 'a .gguf file run on this machine by llama.cpp (CPU); no network, no key' },
  { id: 'local', label: 'Local server', note: 'any OpenAI-compatible server: Ollama, LM Studio, llama.cpp, vLLM' },
  { id: 'openai', label: 'OpenAI', note: 'needs an OpenAI key' },
  { id: 'gemini', label: 'Gemini', note: 'needs a Gemini key' },
];

const CONSTANTS: { key: keyof PipelineOverrides; label: string; symbol: string; step: string; hint: string; int?: boolean }[] = [
  { key: 'alpha', label: 'Uncertainty weight', symbol: 'α', step: '0.05', hint: 'γ = r·w·max(0, 1 − α·u); 0 … 2' },
  { key: 'keepFraction', label: 'Keep fraction', symbol: 'keep', step: '0.05', hint: 'share of each source and step kept; (0, 1]' },
  { key: 'topK', label: 'Fused top K', symbol: 'K', step: '1', hint: 'evidence items in the prompt; 1 … 50', int: true },
  { key: 'candidates', label: 'Candidates', symbol: 'n', step: '1', hint: 'samples per task; 1 … 20', int: true },
  { key: 'temperature', label: 'Temperature', symbol: 'T', step: '0.1', hint: 'sampling temperature; 0 … 2' },
  { key: 'repairRounds', label: 'Repair rounds', symbol: 'R', step: '1', hint: 'at most; 0 … 5', int: true },
];

interface Draft {
  backend: BackendChoiceUi;
  model: string;
  baseURL: string;
  sandbox: Settings['sandbox'];
  encoder: Settings['encoder'];
  parallel: string;
  queue: string;
  pipeline: Record<keyof PipelineOverrides, string>;
}

function toDraft(s: Settings): Draft {
  return {
    backend: s.backend.kind === 'openai' && s.backend.baseURL ? 'local' : s.backend.kind,
    model: s.backend.model ?? '',
    baseURL: s.backend.baseURL ?? '',
    sandbox: s.sandbox,
    encoder: s.encoder,
    parallel: String(s.parallel),
    queue: s.queue ?? '',
    pipeline: Object.fromEntries(CONSTANTS.map((c) => [c.key, s.pipeline[c.key] === undefined ? '' : String(s.pipeline[c.key])])) as Draft['pipeline'],
  };
}

/** The draft as settings, or the errors by field name. */
export function fromDraft(d: Draft): { ok: true; value: Settings } | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const backend = {
    kind: d.backend === 'local' ? 'openai' : d.backend,
    ...(d.model.trim() ? { model: d.model.trim() } : {}),
    ...(d.backend === 'local' ? { baseURL: d.baseURL.trim() } : {}),
  };
  const b = BackendSchema.safeParse(backend);
  if (!b.success)
    for (const i of b.error.issues)
      errors[i.path[0] === 'baseURL' ? 'baseURL' : i.path[0] === 'model' ? 'model' : 'backend'] =
        i.path[0] === 'baseURL' ? 'an http(s) URL, e.g. http://127.0.0.1:8080/v1' : i.message;
  if (d.backend === 'local' && !d.baseURL.trim()) errors.baseURL = 'the server’s base URL, e.g. http://127.0.0.1:8080/v1';
  const pipeline: Record<string, number> = {};
  for (const c of CONSTANTS) {
    const raw = d.pipeline[c.key].trim();
    if (!raw) continue;
    const n = Number(raw);
    if (!Number.isFinite(n)) errors[`pipeline.${c.key}`] = 'a number';
    else pipeline[c.key] = n;
  }
  const p = PipelineOverridesSchema.safeParse(pipeline);
  if (!p.success) for (const i of p.error.issues) errors[`pipeline.${String(i.path[0])}`] ??= readable(i.message);
  const parallel = Number(d.parallel);
  const s = SettingsSchema.safeParse({
    backend: b.success ? b.data : backend,
    sandbox: d.sandbox,
    encoder: d.encoder,
    parallel,
    pipeline: p.success ? p.data : pipeline,
    // Null clears a saved queue (a patch without the field would keep it); the engine checks a URL when saving.
    queue: d.queue.trim() || null,
  });
  if (!s.success)
    for (const i of s.error.issues) {
      if (i.path[0] === 'parallel') errors.parallel = 'a whole number from 1 to 16';
      if (i.path[0] === 'queue') errors.queue = 'at most 500 characters';
    }
  if (Object.keys(errors).length || !s.success) return { ok: false, errors: Object.keys(errors).length ? errors : { form: 'invalid settings' } };
  return { ok: true, value: s.data };
}

function readable(m: string): string {
  return m
    .replace(/^Too small: expected number to be >/, 'must be >')
    .replace(/^Too big: expected number to be </, 'must be <')
    .replace(/^Invalid input: expected int, received number$/, 'a whole number');
}

export function SettingsView() {
  const settings = useApp((s) => s.settings);
  const refresh = useApp((s) => s.refreshSettings);
  return (
    <div className="view" data-testid="settings-view">
      <header className="view-head">
        <div>
          <h1>Settings</h1>
          <p className="view-sub">Used by the next task or experiment; a run records the settings it used.</p>
        </div>
      </header>
      {settings.status === 'loading' && !settings.data ? <Loading label="Reading settings…" /> : null}
      {settings.status === 'error' && !settings.data ? (
        <ErrorBox error={settings.error} title="Could not read settings" onRetry={() => void refresh()} />
      ) : null}
      {settings.data ? <SettingsForm initial={settings.data} /> : null}
      <KeysSection />
      <PricesSection />
    </div>
  );
}

/** What each part of the settings form is given: the draft, the errors by field, and a way to change the draft. */
interface DraftProps {
  draft: Draft;
  errors: Record<string, string>;
  patch: (p: Partial<Draft>) => void;
}

function SettingsForm({ initial }: { initial: Settings }) {
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
              className={`backend-opt ${on ? 'backend-opt-on' : ''}`}
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
          <Field label={draft.backend === 'llama-cpp' ? 'Model file' : 'Model'} error={errors.model} hint={MODEL_HINT[draft.backend]}>
            {(id, d) => (
              <input
                id={id}
                aria-describedby={d}
                aria-invalid={!!errors.model}
                className="input input-wide mono"
                value={draft.model}
                onChange={(e) => patch({ model: e.target.value })}
                data-testid="settings-model"
                spellCheck={false}
                placeholder={MODEL_PLACEHOLDER[draft.backend]}
              />
            )}
          </Field>
        ) : null}
        {draft.backend === 'local' ? (
          <Field label="Base URL" error={errors.baseURL}>
            {(id, d) => (
              <input
                id={id}
                aria-describedby={d}
                aria-invalid={!!errors.baseURL}
                className="input input-wide mono"
                value={draft.baseURL}
                onChange={(e) => patch({ baseURL: e.target.value })}
                placeholder="http://127.0.0.1:8080/v1"
                data-testid="settings-base-url"
                spellCheck={false}
              />
            )}
          </Field>
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

const QUEUE_HINT = 'empty: run in this app; redis://127.0.0.1:6379 or rediss://host:port; password in OPENCODER_REDIS_PASSWORD; see docs/queue.md';

function ExecutionSection({ draft, errors, patch }: DraftProps) {
  return (
    <Section title="Execution" testId="settings-execution" className="settings-execution">
      <div className="form-row">
        <Field label="Sandbox" hint="strong: bubblewrap namespaces, no network, unprivileged uid; weak: resource limits only (labelled)">
          {(id, d) => (
            <select
              id={id}
              aria-describedby={d}
              className="input"
              value={draft.sandbox}
              onChange={(e) => patch({ sandbox: e.target.value as Settings['sandbox'] })}
              data-testid="settings-sandbox"
            >
              <option value="auto">auto</option>
              <option value="strong">strong</option>
              <option value="weak">weak</option>
            </select>
          )}
        </Field>
        <Field label="Encoder" hint="auto: UniXcoder when installed, else the bundled default">
          {(id, d) => (
            <select
              id={id}
              aria-describedby={d}
              className="input"
              value={draft.encoder}
              onChange={(e) => patch({ encoder: e.target.value as Settings['encoder'] })}
              data-testid="settings-encoder"
            >
              <option value="auto">auto</option>
              <option value="default">default</option>
              <option value="unixcoder">unixcoder</option>
            </select>
          )}
        </Field>
        <Field label="Parallel tasks" error={errors.parallel} hint="1 … 16">
          {(id, d) => (
            <input
              id={id}
              aria-describedby={d}
              aria-invalid={!!errors.parallel}
              className="input input-num"
              inputMode="numeric"
              value={draft.parallel}
              onChange={(e) => patch({ parallel: e.target.value })}
              data-testid="settings-parallel"
            />
          )}
        </Field>
      </div>
      <div className="form-row settings-queue">
        <Field label="Queue (Redis URL)" error={errors.queue} hint={QUEUE_HINT}>
          {(id, d) => (
            <input
              id={id}
              aria-describedby={d}
              aria-invalid={!!errors.queue}
              className="input input-wide mono"
              value={draft.queue}
              onChange={(e) => patch({ queue: e.target.value })}
              placeholder="empty: run in this app"
              data-testid="settings-queue"
              spellCheck={false}
              autoComplete="off"
            />
          )}
        </Field>
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

function KeysSection() {
  const info = useApp((s) => s.info.data);
  const refreshInfo = useApp((s) => s.refreshInfo);
  return (
    <Section
      title="API keys"
      testId="settings-keys"
      subtitle={
        info ? (
          info.keyStorage === 'keychain' ? (
            <span data-testid="key-storage">Kept in the operating system’s keychain; never shown again, never sent to the sandbox.</span>
          ) : (
            <span data-testid="key-storage">
              Browser mode: kept in the engine’s memory for this session only — gone when it stops. Environment variables (OPENAI_API_KEY, GEMINI_API_KEY) also
              work.
            </span>
          )
        ) : null
      }
    >
      {info ? (
        <div className="keys">
          <KeyField provider="openai" label="OpenAI" isSet={info.keys.openai} onChange={() => void refreshInfo()} />
          <KeyField provider="gemini" label="Gemini" isSet={info.keys.gemini} onChange={() => void refreshInfo()} />
        </div>
      ) : (
        <Loading inline />
      )}
    </Section>
  );
}

function KeyField({ provider, label, isSet, onChange }: { provider: 'openai' | 'gemini'; label: string; isSet: boolean; onChange: () => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [state, setState] = useState(isSet);
  useEffect(() => setState(isSet), [isSet]);
  const send = async (key: string | null) => {
    setError(null);
    if (key !== null && key.trim().length < 8) return setError('a key has at least 8 characters');
    setBusy(true);
    try {
      const r = await engine().call('keys.set', { provider, key: key === null ? null : key.trim() });
      setState(r[provider]);
      setValue('');
      onChange();
    } catch (err) {
      setError(asCallError(err).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="key-row" data-testid={`key-${provider}`}>
      <div className="key-head">
        <strong>{label}</strong>
        <Badge tone={state ? 'good' : 'muted'} testId={`key-${provider}-state`}>
          {state ? 'key set' : 'no key'}
        </Badge>
      </div>
      <form
        className="input-row"
        onSubmit={(e) => {
          e.preventDefault();
          void send(value);
        }}
      >
        <input
          type="password"
          className="input mono"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          placeholder={state ? 'enter a new key to replace it' : 'paste the key'}
          autoComplete="off"
          spellCheck={false}
          aria-label={`${label} API key`}
          aria-invalid={!!error}
          data-testid={`key-${provider}-input`}
        />
        <button type="submit" className="btn" disabled={busy || !value} data-testid={`key-${provider}-save`}>
          Save key
        </button>
        {state ? (
          <button
            type="button"
            className="btn btn-quiet btn-danger-quiet"
            disabled={busy}
            onClick={() => void send(null)}
            data-testid={`key-${provider}-remove`}
          >
            Remove
          </button>
        ) : null}
      </form>
      {error ? (
        <div className="field-error" role="alert">
          {error}
        </div>
      ) : null}
    </div>
  );
}
