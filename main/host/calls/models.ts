// Calls over what can generate (models.list, models.detect): the GGUF files in the models folder, the local
// OpenAI-compatible servers found on the loopback ports (main/generate/local-servers.ts), and the hosted providers
// with their key status. Servers are looked for at first start (no settings file yet) and when the user asks
// (Settings' Detect button), never on a timer; the last finding is kept for models.list. The CLI's
// `opencoder models` builds the same answer (modelSourcesOf).

import fs from 'node:fs';
import { DEFAULT_MODELS, type ModelSources, type ProviderStatus } from '../../../contract/index.ts';
import { DEFAULT_LOCAL_PORTS, detectLocalServers, listGgufFiles, portsFromEnv, type LocalServer } from '../../generate/local-servers.ts';
import { messageOf } from '../jobs.ts';
import type { Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';

const PROVIDERS: { id: ProviderStatus['id']; label: string }[] = [
  { id: 'openai', label: 'OpenAI' },
  { id: 'gemini', label: 'Gemini' },
];

/** The answer of models.list / models.detect (and `opencoder models --json`) from what was found. */
export function modelSourcesOf(o: {
  modelsDir: string;
  servers: LocalServer[];
  detectedAt: string | null;
  ports: readonly number[];
  keys: Record<ProviderStatus['id'], boolean>;
}): ModelSources {
  return {
    modelsDir: { path: o.modelsDir, exists: fs.existsSync(o.modelsDir) },
    ggufFiles: listGgufFiles(o.modelsDir),
    servers: o.servers.map((s) => ({ ...s, models: [...s.models] })),
    detectedAt: o.detectedAt,
    ports: [...o.ports],
    providers: PROVIDERS.map((p) => ({ ...p, keyPresent: o.keys[p.id], defaultModel: DEFAULT_MODELS[p.id] })),
  };
}

/** One workspace's detection: the last finding, the one running, and how to stop it when the engine closes. */
interface Detection {
  servers: LocalServer[];
  detectedAt: string | null;
  ports: number[];
  running: Promise<void> | null;
  /** Finished detections are numbered so that a slower, older one never replaces a newer finding. */
  latest: number;
  readonly controller: AbortController;
}

const detections = new WeakMap<Workspace, Detection>();

function detectionOf(ws: Workspace): Detection {
  let d = detections.get(ws);
  if (!d) {
    d = { servers: [], detectedAt: null, ports: defaultPorts(ws), running: null, latest: 0, controller: new AbortController() };
    detections.set(ws, d);
  }
  return d;
}

/** The tools' default ports, or those OPENCODER_LOCAL_PORTS names (a bad value is said once and the defaults kept). */
function defaultPorts(ws: Workspace): number[] {
  try {
    return portsFromEnv(ws.env) ?? [...DEFAULT_LOCAL_PORTS];
  } catch (err) {
    ws.emit({ type: 'notice', level: 'warning', message: `${messageOf(err)} Looking on the default ports instead.` });
    return [...DEFAULT_LOCAL_PORTS];
  }
}

let sequence = 0;

/** Looks for servers now; the finding replaces the last one unless a newer detection finished first. */
function detect(ws: Workspace, ports: number[]): Promise<void> {
  const d = detectionOf(ws);
  const n = ++sequence;
  const run = detectLocalServers({ ports, signal: d.controller.signal }).then((servers) => {
    if (n < d.latest || d.controller.signal.aborted) return;
    d.latest = n;
    Object.assign(d, { servers, ports, detectedAt: new Date().toISOString() });
  });
  const tracked = run.finally(() => {
    if (d.running === tracked) d.running = null;
  });
  d.running = tracked;
  return tracked;
}

function answer(ws: Workspace): ModelSources {
  const d = detectionOf(ws);
  return modelSourcesOf({ modelsDir: ws.modelsDir, servers: d.servers, detectedAt: d.detectedAt, ports: d.ports, keys: ws.keyFlags() });
}

/** At first start (no settings file yet), look for local servers once, so Settings can offer them straight away. */
export function startFirstRunDetection(ws: Workspace): void {
  if (fs.existsSync(ws.settingsFile)) return;
  const d = detectionOf(ws);
  void detect(ws, d.ports).catch(() => {
    /* a failed look finds nothing; Detect tries again */
  });
}

/** Stops a detection in flight (the engine is closing). */
export function stopDetection(ws: Workspace): void {
  detections.get(ws)?.controller.abort();
}

export function modelCalls(ws: Workspace): CallTable<'models.list' | 'models.detect'> {
  return {
    'models.list': async () => {
      // A first-start detection still running is waited for (each probe is short): the first answer is complete.
      await detectionOf(ws).running?.catch(() => {});
      return answer(ws);
    },
    'models.detect': async ({ ports }) => {
      await detect(ws, ports ?? defaultPorts(ws));
      return answer(ws);
    },
  };
}
