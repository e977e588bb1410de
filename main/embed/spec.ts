// Encoder specs: plain, serialisable descriptions of an encoder (files, settings, id) that can cross into a worker.

import crypto from 'node:crypto';
import fs from 'node:fs';
import type { HashModelConfig } from './hash-config.ts';

export interface HashEncoderSpec {
  kind: 'subtoken-hash';
  id: string;
  name: string;
  description: string;
  dim: number;
  dir: string;
  modelPath: string;
  configPath: string;
  config: HashModelConfig;
}

export interface UnixcoderEncoderSpec {
  kind: 'unixcoder';
  id: string;
  name: string;
  description: string;
  /** Hidden size when known before loading (from the folder's config.json); the opened encoder always knows it. */
  dim: number | null;
  dir: string;
  modelPath: string;
  tokenizerPath: string;
  /** tokenizer_config.json when present. */
  tokenizerConfigPath: string | null;
  /** Total tokens per text including the four special tokens (official UniXcoder setting: 512). */
  maxLength: number;
}

export type EncoderSpec = HashEncoderSpec | UnixcoderEncoderSpec;

const fileHashCache = new Map<string, { size: number; mtimeMs: number; sha: string }>();

/** sha256 (hex) of a file, streamed; cached per process by path, size and mtime. */
export async function sha256File(file: string): Promise<string> {
  const st = await fs.promises.stat(file);
  const hit = fileHashCache.get(file);
  if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs) return hit.sha;
  const h = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 22 })) h.update(chunk as Buffer);
  const sha = h.digest('hex');
  fileHashCache.set(file, { size: st.size, mtimeMs: st.mtimeMs, sha });
  return sha;
}

/** A short, stable hash of several parts (file hashes, settings). */
export function shortHash(parts: string[], length = 12): string {
  const h = crypto.createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, length);
}
