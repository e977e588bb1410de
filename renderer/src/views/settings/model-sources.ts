// Where the model picker and the no-model notice get what can generate: models.list when they appear (it probes
// nothing: the engine looked for local servers at first start), models.detect when the user presses Detect.
// Never on a timer.

import { useCallback, useEffect, useState } from 'react';
import type { CallError, ModelSources } from '../../api/contract.ts';
import { asCallError, engine } from '../../store.ts';

export interface ModelSourcesState {
  sources: ModelSources | null;
  error: CallError | null;
  loading: boolean;
  detecting: boolean;
  /** Looks for local servers now (and lists the GGUF files again). */
  detect(): Promise<void>;
}

/** The model sources, read once when `enabled` (the notice asks only while no model is configured). */
export function useModelSources(enabled = true): ModelSourcesState {
  const [sources, setSources] = useState<ModelSources | null>(null);
  const [error, setError] = useState<CallError | null>(null);
  const [loading, setLoading] = useState(false);
  const [detecting, setDetecting] = useState(false);

  useEffect(() => {
    if (!enabled) return;
    let live = true;
    setLoading(true);
    engine()
      .call('models.list', {})
      .then((s) => live && (setSources(s), setError(null)))
      .catch((err: unknown) => live && setError(asCallError(err)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [enabled]);

  const detect = useCallback(async () => {
    setDetecting(true);
    try {
      setSources(await engine().call('models.detect', {}));
      setError(null);
    } catch (err) {
      setError(asCallError(err));
    } finally {
      setDetecting(false);
    }
  }, []);

  return { sources, error, loading, detecting, detect };
}

/** `Ollama 0.12.6 (2 models)`, for one-line summaries. */
export function serverSummary(s: ModelSources['servers'][number]): string {
  return `${s.label} at ${s.baseURL} (${s.models.length === 1 ? '1 model' : `${s.models.length} models`})`;
}
