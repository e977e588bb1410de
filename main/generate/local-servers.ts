// Models on this machine that need no key: OpenAI-compatible servers listening on the loopback ports the
// common tools use (Ollama, llama.cpp's llama-server, LM Studio, vLLM), each identified and its models listed,
// and the GGUF files in the models folder (run in process by the llama-cpp backend). Only 127.0.0.1 and ::1 are
// ever probed: any other host is refused before a socket opens, no redirect is followed and no proxy is used, so
// detection cannot reach past this machine. It lives beside the backends because what it finds is a backend
// choice (an OpenAI-compatible base URL and model, or a model file); the CLI and the desktop engine both use it.
//
// Each probe is a few GETs with a short timeout, all ports and both addresses in parallel. A port counts as a
// server only when it answers like one: Ollama's /api/tags, or an OpenAI model list at /v1/models; anything else
// listening there (a web app on 8080, nothing at all) is not reported.

import fs from 'node:fs';
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import path from 'node:path';
import { LlmError } from './errors.ts';
import { ggufFilesIn } from './llama/runtime.ts';

export type LocalTool = 'ollama' | 'llama.cpp' | 'lm-studio' | 'vllm' | 'openai-compatible';

/** Each tool's name and the port it listens on unless told otherwise (the tools' documented defaults). */
export const LOCAL_TOOLS: Record<LocalTool, { name: string; port: number | null }> = {
  ollama: { name: 'Ollama', port: 11434 },
  'llama.cpp': { name: 'llama.cpp server', port: 8080 },
  'lm-studio': { name: 'LM Studio', port: 1234 },
  vllm: { name: 'vLLM', port: 8000 },
  'openai-compatible': { name: 'OpenAI-compatible server', port: null },
};

export const DEFAULT_LOCAL_PORTS: readonly number[] = [11434, 8080, 1234, 8000];
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1'] as const;
export type LoopbackHost = (typeof LOOPBACK_HOSTS)[number];

/** Ports to probe instead of the defaults (`OPENCODER_LOCAL_PORTS=11435,8081`): a tool moved to another port. */
export const LOCAL_PORTS_ENV = 'OPENCODER_LOCAL_PORTS';

/** How long each request of a probe may take; a port with nothing listening answers at once. */
export const DEFAULT_PROBE_TIMEOUT_MS = 1500;
/** A model list larger than this is not a model list. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface LocalServer {
  tool: LocalTool;
  /** `Ollama 0.12.6`, `llama.cpp server`. */
  label: string;
  host: LoopbackHost;
  port: number;
  /** The OpenAI-compatible base URL to give the OpenAI SDK: `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  version: string | null;
  /** The model ids the server names (what --model takes), sorted. */
  models: string[];
}

export interface DetectOptions {
  /** Default DEFAULT_LOCAL_PORTS. */
  ports?: readonly number[];
  /** Default both loopback addresses; anything else is refused. */
  hosts?: readonly string[];
  /** Per request; default DEFAULT_PROBE_TIMEOUT_MS. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The host as a loopback address, or a refusal naming it: detection never leaves this machine. */
export function loopbackHost(host: string): LoopbackHost {
  const h = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (h === '127.0.0.1' || h === '::1') return h;
  throw new LlmError(
    'config',
    'local-servers',
    `Refusing to probe ${JSON.stringify(host)}: OpenCoder looks for model servers on this machine only (127.0.0.1 and ::1). ` +
      'To use a server elsewhere, enter its base URL in Settings or pass --base-url URL.',
  );
}

/** A port list checked: whole numbers from 1 to 65535, each once. */
export function checkPorts(ports: readonly number[]): number[] {
  for (const p of ports) {
    if (!Number.isInteger(p) || p < 1 || p > 65535) throw new LlmError('config', 'local-servers', `A port is a whole number from 1 to 65535, got ${p}.`);
  }
  return [...new Set(ports)];
}

/** The ports `OPENCODER_LOCAL_PORTS` names (comma- or space-separated), or null when it is unset or empty. */
export function portsFromEnv(env: NodeJS.ProcessEnv): number[] | null {
  const raw = env[LOCAL_PORTS_ENV]?.trim();
  if (!raw) return null;
  const parts = raw.split(/[\s,]+/).filter(Boolean);
  const ports = parts.map(Number);
  const bad = parts.find((_, i) => !Number.isInteger(ports[i]));
  if (bad !== undefined)
    throw new LlmError('config', 'local-servers', `${LOCAL_PORTS_ENV} must list port numbers (e.g. 11434,8080), got ${JSON.stringify(bad)}.`);
  return checkPorts(ports);
}

const urlHost = (host: LoopbackHost) => (host === '::1' ? '[::1]' : host);

/** GET a path on a loopback port: the parsed JSON of a 2xx answer, or null for anything else (no answer, an error, not JSON). */
function getJson(host: LoopbackHost, port: number, pathname: string, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(null);
    let settled = false;
    const done = (v: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(v);
    };
    // agent: false and a literal address: no proxy, no DNS, no pooled socket left behind.
    const req = http.request({
      host,
      port,
      path: pathname,
      method: 'GET',
      family: host === '::1' ? 6 : 4,
      agent: false,
      headers: { accept: 'application/json' },
    });
    const onAbort = () => {
      req.destroy();
      done(null);
    };
    const timer = setTimeout(onAbort, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', () => done(null));
    req.on('response', (res) => {
      // A redirect is not followed (it could point off this machine); a non-2xx answer is not the endpoint.
      if (!res.statusCode || res.statusCode < 200 || res.statusCode >= 300) {
        res.resume();
        return done(null);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES) return onAbort();
        chunks.push(c);
      });
      res.on('error', () => done(null));
      res.on('end', () => {
        try {
          done(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          done(null);
        }
      });
    });
    req.end();
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const sorted = (xs: (string | null)[]): string[] => [...new Set(xs.filter((x): x is string => x !== null))].sort();

/** Ollama's /api/tags: `{ models: [{ name, model, size, … }] }`; the names, or null when it is not that. */
function ollamaModels(tags: unknown): string[] | null {
  if (!isRecord(tags) || !Array.isArray(tags.models)) return null;
  if (!tags.models.every((m) => isRecord(m) && (text(m.name) ?? text(m.model)))) return null;
  return sorted(tags.models.map((m) => text((m as Record<string, unknown>).name) ?? text((m as Record<string, unknown>).model)));
}

/** An OpenAI model list (`{ object: 'list', data: [{ id, owned_by? }] }`), or null when it is not one. */
function openAiModels(list: unknown): { ids: string[]; owners: string[] } | null {
  if (!isRecord(list) || !Array.isArray(list.data)) return null;
  if (list.object !== undefined && list.object !== 'list') return null;
  if (!list.data.every((m) => isRecord(m) && text(m.id))) return null;
  const data = list.data as Record<string, unknown>[];
  return { ids: sorted(data.map((m) => text(m.id))), owners: sorted(data.map((m) => text(m.owned_by))) };
}

/** Which tool serves an OpenAI model list, from what it says of itself (owners, /props, /version, LM Studio's own API). */
async function identify(
  host: LoopbackHost,
  port: number,
  owners: string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ tool: LocalTool; version: string | null }> {
  if (owners.includes('vllm'))
    return { tool: 'vllm', version: text(((await getJson(host, port, '/version', timeoutMs, signal)) as { version?: unknown } | null)?.version) };
  const [props, version, lmStudio] = await Promise.all([
    getJson(host, port, '/props', timeoutMs, signal),
    getJson(host, port, '/version', timeoutMs, signal),
    getJson(host, port, '/api/v0/models', timeoutMs, signal),
  ]);
  // llama-server's /props carries its generation defaults; its models are owned by "llamacpp".
  if (owners.includes('llamacpp') || (isRecord(props) && isRecord(props.default_generation_settings)))
    return { tool: 'llama.cpp', version: isRecord(props) ? text(props.build_info) : null };
  if (isRecord(lmStudio) && Array.isArray(lmStudio.data) && lmStudio.data.some((m) => isRecord(m) && 'state' in m && 'type' in m))
    return { tool: 'lm-studio', version: null };
  if (isRecord(version) && text(version.version) && Object.keys(version).length === 1) return { tool: 'vllm', version: text(version.version) };
  return { tool: 'openai-compatible', version: null };
}

function server(tool: LocalTool, host: LoopbackHost, port: number, version: string | null, models: string[]): LocalServer {
  const name = LOCAL_TOOLS[tool].name;
  return { tool, label: version ? `${name} ${version}` : name, host, port, baseURL: `http://${urlHost(host)}:${port}/v1`, version, models };
}

/** What listens on one loopback port, when it is a model server; null when nothing is there or it is something else. */
export async function probeLocalServer(hostIn: string, port: number, opts: Omit<DetectOptions, 'ports' | 'hosts'> = {}): Promise<LocalServer | null> {
  const host = loopbackHost(hostIn);
  checkPorts([port]);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const [tags, list] = await Promise.all([getJson(host, port, '/api/tags', timeoutMs, opts.signal), getJson(host, port, '/v1/models', timeoutMs, opts.signal)]);
  const ollama = ollamaModels(tags);
  if (ollama) {
    const version = text(((await getJson(host, port, '/api/version', timeoutMs, opts.signal)) as { version?: unknown } | null)?.version);
    return server('ollama', host, port, version, ollama);
  }
  const models = openAiModels(list);
  if (!models) return null;
  const { tool, version } = await identify(host, port, models.owners, timeoutMs, opts.signal);
  return server(tool, host, port, version, models.ids);
}

/**
 * The model servers on this machine's loopback ports, both addresses probed at once. A server reachable on both
 * addresses (one dual-stack socket) is reported once, at 127.0.0.1. Ordered as the ports were given.
 */
export async function detectLocalServers(opts: DetectOptions = {}): Promise<LocalServer[]> {
  const hosts = [...new Set((opts.hosts ?? LOOPBACK_HOSTS).map(loopbackHost))];
  const ports = checkPorts(opts.ports ?? DEFAULT_LOCAL_PORTS);
  // Every probe listens for the caller's abort at once (up to three requests each, each listener removed when its
  // request settles): raise the signal's listener limit to that bound so Node does not report a leak.
  if (opts.signal) setMaxListeners(Math.max(10, ports.length * hosts.length * 3), opts.signal);
  const probes = ports.flatMap((port) => hosts.map((host) => probeLocalServer(host, port, opts)));
  const found = (await Promise.all(probes)).filter((s): s is LocalServer => s !== null);
  const out: LocalServer[] = [];
  for (const s of found) {
    const twin = out.find((o) => o.port === s.port && o.tool === s.tool && o.models.join('\n') === s.models.join('\n'));
    if (!twin) out.push(s);
  }
  return out.sort((a, b) => ports.indexOf(a.port) - ports.indexOf(b.port) || a.host.localeCompare(b.host));
}

// ---- GGUF files ---------------------------------------------------------------------------------------------

export interface GgufFile {
  /** The file name (what `--model` takes with `--models DIR`). */
  name: string;
  /** Its absolute path (what Settings stores). */
  path: string;
  bytes: number;
}

/** The .gguf files directly in the models folder, with their sizes (none when the folder does not exist). */
export function listGgufFiles(dir: string): GgufFile[] {
  const out: GgufFile[] = [];
  for (const name of ggufFilesIn(dir)) {
    const file = path.resolve(dir, name);
    try {
      out.push({ name, path: file, bytes: fs.statSync(file).size });
    } catch {
      /* removed while listing */
    }
  }
  return out;
}
