// Settings: the generation backend (no model — the retrieval-only baseline —, OpenAI, Gemini, an OpenAI-compatible
// local server, or a GGUF file run by llama.cpp), model, write-only API keys, sandbox, encoder, parallel tasks, the
// queue experiments run through (a Redis URL, checked by the engine when saved) and the pipeline constants, validated before saving; the model picker (GGUF files, detected local servers, hosted
// providers) is settings/ModelPicker.tsx, the price table settings/PricesSection.tsx; the form is settings/SettingsForm.tsx
// (its draft and checks settings/draft.ts), the keys settings/KeysSection.tsx.

import { ErrorBox, Loading, ViewHead } from '../components/ui.tsx';
import { useApp } from '../store.ts';
import { KeysSection } from './settings/KeysSection.tsx';
import { PricesSection } from './settings/PricesSection.tsx';
import { SettingsForm } from './settings/SettingsForm.tsx';
import './SettingsView.css';

export function SettingsView() {
  const settings = useApp((s) => s.settings);
  const refresh = useApp((s) => s.refreshSettings);
  return (
    <div className="view" data-testid="settings-view">
      <ViewHead title="Settings" sub="Used by the next task or experiment; a run records the settings it used." />
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
