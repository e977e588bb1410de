// The name a configuration goes by in runs and traces. Kept out of main/model so the data model stays free of
// Node modules (the renderer imports it).

import { createHash } from 'node:crypto';
import type { PipelineConfig } from '../model/config.ts';

/** sha256 of a config's canonical JSON (keys sorted): what runs and traces record to name a configuration. */
export function configHash(config: PipelineConfig): string {
  const canon = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
        )
      : v;
  return createHash('sha256')
    .update(JSON.stringify(canon(config)))
    .digest('hex');
}
