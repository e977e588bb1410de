// Where the llama-cpp backend's model comes from and what stays loaded: the GGUF file a --model names (a path, or
// a file name in the models folder; a missing or foreign file is an error naming it and listing the .gguf files
// there), node-llama-cpp imported only when a local model is first used (other commands never pay for it), and
// one llama.cpp runtime and one copy of each model per process (starting llama.cpp takes seconds; a model file
// is mapped once however many backends use it).

import fs from 'node:fs';
import path from 'node:path';
import type { Llama, LlamaModel } from 'node-llama-cpp';
import { LlmError } from '../errors.ts';

export const GGUF_MAGIC = 'GGUF';

/** Whether a --model value names a file by path (else it is a file name looked up in the models folder). */
export function isModelPath(model: string): boolean {
  return path.isAbsolute(model) || model.includes('/') || model.includes(path.sep) || model.startsWith('.');
}

/** The .gguf files directly in a folder, sorted (none when the folder does not exist). */
export function ggufFilesIn(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.gguf'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

function whatIsThere(dir: string | undefined): string {
  if (!dir) return 'No models folder was given (--models DIR).';
  if (!fs.existsSync(dir)) return `The models folder ${dir} does not exist yet.`;
  const files = ggufFilesIn(dir);
  return files.length ? `The models folder ${dir} holds: ${files.join(', ')}.` : `The models folder ${dir} holds no .gguf files.`;
}

const HOW_TO = 'Put a GGUF model there (README, "Local models") or pass --model PATH/TO/FILE.gguf.';

/**
 * The absolute path of the GGUF file `model` names: a path as given (relative to the working folder), or a file
 * name in `modelsDir` (".gguf" may be left off). Checked now, before anything is loaded: the file exists and
 * starts with the GGUF magic.
 */
export function resolveModelFile(model: string, modelsDir: string | undefined): string {
  const trimmed = model.trim();
  if (!trimmed) throw new LlmError('config', 'llama-cpp', `The llama-cpp backend needs a model: --model FILE.gguf. ${whatIsThere(modelsDir)}`);
  let file: string;
  if (isModelPath(trimmed)) file = path.resolve(trimmed);
  else {
    if (!modelsDir)
      throw new LlmError('config', 'llama-cpp', `The model "${trimmed}" is a file name, but no models folder was given: pass --models DIR or a path.`);
    const named = path.resolve(modelsDir, trimmed);
    file = !fs.existsSync(named) && !/\.gguf$/i.test(trimmed) && fs.existsSync(`${named}.gguf`) ? `${named}.gguf` : named;
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    const dir = isModelPath(trimmed) ? path.dirname(file) : modelsDir;
    throw new LlmError('unknown_model', 'llama-cpp', `No GGUF model at ${file}. ${whatIsThere(dir)} ${HOW_TO}`);
  }
  if (!stat.isFile()) throw new LlmError('config', 'llama-cpp', `${file} is a folder, not a GGUF model file. ${whatIsThere(file)}`);
  const head = Buffer.alloc(4);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, 4, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head.toString('latin1') !== GGUF_MAGIC) {
    throw new LlmError(
      'config',
      'llama-cpp',
      `${file} is not a GGUF model (it starts with ${JSON.stringify(head.toString('latin1'))}, not "GGUF"): llama.cpp needs a .gguf file ` +
        `(a GGUF build of the model, or one converted with llama.cpp's convert_hf_to_gguf.py). ${whatIsThere(path.dirname(file))}`,
    );
  }
  return file;
}

// ---- the runtime, once per process ------------------------------------------------------------------------

type NodeLlamaCpp = typeof import('node-llama-cpp');

let lib: Promise<NodeLlamaCpp> | null = null;
let runtime: Promise<Llama> | null = null;
/** The last messages llama.cpp logged (warnings and errors): a failed load says why with them. */
const recentLogs: string[] = [];

/** node-llama-cpp, imported on first use. */
export function nodeLlamaCpp(): Promise<NodeLlamaCpp> {
  lib ??= import('node-llama-cpp').catch((e: unknown) => {
    lib = null;
    throw new LlmError('config', 'llama-cpp', `node-llama-cpp could not be loaded (${(e as Error).message}); run npm install in the OpenCoder folder.`, {
      cause: e,
    });
  });
  return lib;
}

/**
 * The process's llama.cpp, on the CPU, from the prebuilt binaries that come with the npm package: never built from
 * source, never downloaded. Its log goes to a short buffer (not to stdout, which --json keeps clean).
 */
export function llamaRuntime(): Promise<Llama> {
  runtime ??= (async () => {
    const m = await nodeLlamaCpp();
    try {
      return await m.getLlama({
        gpu: false,
        build: 'never',
        skipDownload: true,
        progressLogs: false,
        // 0: a context's thread count is exactly the one asked for (determinism: the same threads give the same numbers)
        maxThreads: 0,
        logLevel: m.LlamaLogLevel.warn,
        logger: (level, message) => {
          const line = message.trim();
          if (!line) return;
          recentLogs.push(`${level}: ${line}`);
          if (recentLogs.length > 12) recentLogs.shift();
        },
      });
    } catch (e) {
      runtime = null;
      const platform = `${process.platform}-${process.arch}`;
      throw new LlmError(
        'config',
        'llama-cpp',
        e instanceof m.NoBinaryFoundError
          ? `node-llama-cpp has no prebuilt llama.cpp for this machine (${platform}); the llama-cpp backend cannot run here. Use a local server (--backend openai --base-url …) instead.`
          : `llama.cpp could not start on this machine (${platform}): ${(e as Error).message}`,
        { cause: e },
      );
    }
  })();
  return runtime;
}

/** What llama.cpp said lately, for an error message ('' when nothing). */
export function llamaLogTail(): string {
  return recentLogs.length ? ` llama.cpp said: ${recentLogs.slice(-4).join(' | ')}` : '';
}

interface CachedModel {
  model: Promise<LlamaModel>;
  users: number;
}

const models = new Map<string, CachedModel>();

/** A file's identity in the cache: a file replaced in place (another size or time) is loaded anew. */
function keyOf(file: string): string {
  let s: fs.Stats;
  try {
    s = fs.statSync(file);
  } catch (e) {
    throw new LlmError('unknown_model', 'llama-cpp', `The model ${file} is gone: it was there when the backend was set up. ${HOW_TO}`, { cause: e });
  }
  return `${file}\0${s.size}\0${s.mtimeMs}`;
}

/** The loaded model of a GGUF file, shared in the process until its last user releases it. */
export async function acquireModel(file: string): Promise<{ model: LlamaModel; release: () => Promise<void> }> {
  const key = keyOf(file);
  let entry = models.get(key);
  if (!entry) {
    const loading = llamaRuntime().then((llama) =>
      llama.loadModel({ modelPath: file, gpuLayers: 0 }).catch((e: unknown) => {
        throw new LlmError(
          'config',
          'llama-cpp',
          `llama.cpp could not load ${file} (${(e as Error).message}). The file may be truncated, or a model architecture this llama.cpp build does not know.${llamaLogTail()}`,
          { cause: e },
        );
      }),
    );
    entry = { model: loading, users: 0 };
    models.set(key, entry);
    loading.catch(() => models.delete(key));
  }
  entry.users++;
  const held = entry;
  let model: LlamaModel;
  try {
    model = await held.model;
  } catch (e) {
    held.users--;
    throw e;
  }
  let released = false;
  return {
    model,
    release: async () => {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      if (models.get(key) === held) models.delete(key);
      await model.dispose();
    },
  };
}
