// What the first-run screen (Repository) and the Task view say while no model is configured: that results are the
// retrieval-only baseline, not a model's, and how to add a model (a GGUF file in the models folder, a local server
// found by Detect, or an API key), with what the engine already found.

import { backendInSentence } from '../../../../main/model/backend-label.ts';
import { useApp } from '../../store.ts';
import { serverSummary, useModelSources } from './model-sources.ts';
import './NoModelNotice.css';

export function NoModelNotice() {
  const settings = useApp((s) => s.settings.data);
  const setView = useApp((s) => s.setView);
  const offline = settings?.backend.kind === 'offline';
  const { sources } = useModelSources(offline);
  if (!offline) return null;
  const dir = sources?.modelsDir.path;
  const usable = sources?.servers.filter((s) => s.models.length) ?? [];
  const found = [
    ...(sources?.ggufFiles.length ? [`${sources.ggufFiles.length} GGUF file${sources.ggufFiles.length === 1 ? '' : 's'} in the models folder`] : []),
    ...usable.map(serverSummary),
    ...(sources?.providers.filter((p) => p.keyPresent).map((p) => `a ${p.label} key`) ?? []),
  ];
  return (
    <div className="notice notice-warn no-model" role="note" data-testid="no-model-notice">
      <div>
        <strong>No model is configured.</strong> Results come from <strong>{backendInSentence({ id: 'offline' })}</strong>: candidates adapted from retrieved
        code, with no language model called — a baseline to compare models against, not a model’s results.
      </div>
      <div>To add a model:</div>
      <ul>
        <li>
          put a GGUF file in the models folder{' '}
          {dir ? (
            <code className="mono" data-testid="no-model-dir">
              {dir}
            </code>
          ) : null}{' '}
          and choose it in Settings;
        </li>
        <li>or start Ollama or LM Studio (or llama.cpp’s llama-server, or vLLM) and press Detect in Settings;</li>
        <li>or add an OpenAI or Gemini API key in Settings.</li>
      </ul>
      {found.length ? <div data-testid="no-model-found">Found: {found.join('; ')}. Choose one in Settings.</div> : null}
      <div>
        <button type="button" className="btn btn-small" onClick={() => setView('settings')} data-testid="no-model-settings">
          Choose a model in Settings
        </button>
      </div>
    </div>
  );
}
