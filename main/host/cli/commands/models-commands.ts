// `opencoder models`: what can generate on this machine and beyond it — the GGUF files in the models folder, the
// OpenAI-compatible servers listening on the loopback ports the common tools use (Ollama, llama.cpp server,
// LM Studio, vLLM; 127.0.0.1 and ::1 only) with their models, and whether OpenAI and Gemini have a key — each
// with the `opencoder generate` flags that use it. With --json, the same document as the app's models.detect.

import path from 'node:path';
import type { ModelSources } from '../../../../contract/index.ts';
import { resolveApiKey } from '../../../generate/backends.ts';
import {
  DEFAULT_LOCAL_PORTS,
  DEFAULT_PROBE_TIMEOUT_MS,
  LOCAL_PORTS_ENV,
  checkPorts,
  detectLocalServers,
  portsFromEnv,
} from '../../../generate/local-servers.ts';
import { OFFLINE_LABEL } from '../../../model/backend-label.ts';
import { bytes } from '../../../model/format.ts';
import { modelSourcesOf } from '../../calls/models.ts';
import { defaultModelsDir } from '../../paths.ts';
import { UsageError, type Command, type CommandResult } from '../kit.ts';
import { num } from './generate-commands.ts';
import { MODELS_SPECS } from './specs.ts';

const KEY_VARS = { openai: 'OPENAI_API_KEY', gemini: 'GEMINI_API_KEY (or GOOGLE_API_KEY)' } as const;

/** `--port N` (repeatable, or comma-separated), else OPENCODER_LOCAL_PORTS, else the tools' default ports. */
function portsOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv): number[] {
  const given = ((values.port as string[] | undefined) ?? []).flatMap((p) => p.split(',')).filter((p) => p.trim());
  if (!given.length) return portsFromEnv(env) ?? [...DEFAULT_LOCAL_PORTS];
  const ports = given.map((p) => {
    const n = Number(p.trim());
    if (!Number.isInteger(n)) throw new UsageError(`--port must be a port number (1 to 65535), got ${JSON.stringify(p)}`);
    return n;
  });
  try {
    return checkPorts(ports);
  } catch (err) {
    throw new UsageError(`--port: ${(err as Error).message}`);
  }
}

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

export interface ModelsDeps {
  env?: NodeJS.ProcessEnv;
}

export function makeModelsCommand(deps: ModelsDeps = {}): Command {
  return {
    ...MODELS_SPECS.models,
    async run({ values }): Promise<CommandResult> {
      const env = deps.env ?? process.env;
      const modelsDir = path.resolve((values.models as string | undefined) ?? defaultModelsDir());
      let ports: number[];
      try {
        ports = portsOf(values, env);
      } catch (err) {
        if (err instanceof UsageError) throw err;
        throw new UsageError(`${LOCAL_PORTS_ENV}: ${(err as Error).message}`);
      }
      const timeoutMs = num(values, 'timeout', { int: true, min: 1 }) ?? DEFAULT_PROBE_TIMEOUT_MS;
      const servers = await detectLocalServers({ ports, timeoutMs });
      const keys = { openai: !!resolveApiKey('openai', undefined, env), gemini: !!resolveApiKey('gemini', undefined, env) };
      const found = modelSourcesOf({ modelsDir, servers, detectedAt: new Date().toISOString(), ports, keys });
      const none = !found.ggufFiles.length && !found.servers.some((s) => s.models.length) && !found.providers.some((p) => p.keyPresent);
      const text = [
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
      return { text, json: { ok: true, command: 'models', ...found } };
    },
  };
}

export const MODELS_COMMAND = makeModelsCommand();

export const MODELS_COMMANDS: Record<string, Command> = { models: MODELS_COMMAND };
