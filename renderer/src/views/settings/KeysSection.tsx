// The API keys: write-only, kept in the keychain (or, in browser mode, the engine's memory); set, replace or remove.

import { useEffect, useState } from 'react';
import { Badge, Loading, Section } from '../../components/ui.tsx';
import { asCallError, engine, useApp } from '../../store.ts';

export function KeysSection() {
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
