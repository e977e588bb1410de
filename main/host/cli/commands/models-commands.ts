// `opencoder models`: what can generate on this machine and beyond it — the GGUF files in the models folder, the
// OpenAI-compatible servers listening on the loopback ports the common tools use (Ollama, llama.cpp server,
// LM Studio, vLLM; 127.0.0.1 and ::1 only) with their models, and whether OpenAI and Gemini have a key — each
// with the `opencoder generate` flags that use it. With --json, the same document as the app's models.detect.

import path from 'node:path';
import { resolveApiKey } from '../../../generate/backends.ts';
import {
  DEFAULT_LOCAL_PORTS,
  DEFAULT_PROBE_TIMEOUT_MS,
  LOCAL_PORTS_ENV,
  checkPorts,
  detectLocalServers,
  portsFromEnv,
} from '../../../generate/local-servers.ts';
import { modelSourcesOf } from '../../calls/models.ts';
import { defaultModelsDir } from '../../paths.ts';
import { UsageError, type Command, type CommandResult } from '../kit.ts';
import { num } from '../flags.ts';
import { MODELS_SPECS } from '../specs.ts';
import { modelsLines } from '../text/models-text.ts';

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
      return { text: modelsLines(found), json: { ok: true, command: 'models', ...found } };
    },
  };
}

export const MODELS_COMMAND = makeModelsCommand();

export const MODELS_COMMANDS: Record<string, Command> = { models: MODELS_COMMAND };
