// How `opencoder models` reads in a terminal: each source of models with the `opencoder generate` flags that use it.

import path from 'node:path';
import type { ModelSources } from '../../../../contract/index.ts';
import { OFFLINE_LABEL } from '../../../model/backend-label.ts';
import { bytes } from '../../../model/format.ts';
import { defaultModelsDir } from '../../paths.ts';

const KEY_VARS = { openai: 'OPENAI_API_KEY', gemini: 'GEMINI_API_KEY (or GOOGLE_API_KEY)' } as const;

function ggufLines(m: ModelSources): string[] {
  const dir = m.modelsDir.path;
  const out = [`GGUF models in ${dir}${m.modelsDir.exists ? '' : ' (the folder does not exist yet)'}:`];
  if (!m.ggufFiles.length) {
    out.push(`  none — put a .gguf file there (or pass --models DIR) to run a model on this machine with llama.cpp`);
    return out;
  }
  const width = Math.max(...m.ggufFiles.map((f) => f.name.length));
  for (const f of m.ggufFiles) out.push(`  ${f.name.padEnd(width)}  ${bytes(f.bytes).padStart(9)}  ${f.path}`);
  const first = m.ggufFiles[0]!;
  out.push(`  use: opencoder generate --backend llama-cpp --model ${path.dirname(first.path) === dir ? first.name : first.path}${defaultDirFlag(dir)} …`);
  return out;
}

const defaultDirFlag = (dir: string) => (path.resolve(dir) === path.resolve(defaultModelsDir()) ? '' : ` --models ${dir}`);

function serverLines(m: ModelSources): string[] {
  const out = [`Local servers (127.0.0.1 and ::1, ports ${m.ports.join(', ')}):`];
  if (!m.servers.length) {
    out.push('  none found — start Ollama (ollama serve), LM Studio (its local server), llama.cpp (llama-server) or vLLM (vllm serve), then run this again');
    return out;
  }
  for (const s of m.servers) {
    out.push(`  ${s.label} at ${s.baseURL} — ${s.models.length ? `${s.models.length} model(s): ${s.models.join(', ')}` : 'no models yet'}`);
    if (s.models.length) out.push(`    use: opencoder generate --backend openai --base-url ${s.baseURL} --model ${s.models[0]} …`);
  }
  return out;
}

function providerLines(m: ModelSources): string[] {
  return [
    'Hosted providers (keys from the environment; the desktop app keeps its own in the keychain):',
    ...m.providers.map((p) =>
      p.keyPresent
        ? `  ${p.label}: key set — use: opencoder generate --backend ${p.id} (default model ${p.defaultModel})`
        : `  ${p.label}: no key — set ${KEY_VARS[p.id]} to use it`,
    ),
  ];
}

/** What `opencoder models` prints: the GGUF files, the local servers, the hosted providers, and what runs use. */
export function modelsLines(found: ModelSources): string[] {
  const none = !found.ggufFiles.length && !found.servers.some((s) => s.models.length) && !found.providers.some((p) => p.keyPresent);
  return [
    ...ggufLines(found),
    '',
    ...serverLines(found),
    '',
    ...providerLines(found),
    '',
    none
      ? `No model found, so runs use “${OFFLINE_LABEL}” (--backend offline): candidates adapted from retrieved code, no language model.`
      : `Without --backend, runs use “${OFFLINE_LABEL}” (--backend offline).`,
  ];
}
