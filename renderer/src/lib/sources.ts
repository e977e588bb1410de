// One color and one name per evidence source, used by every view and chart so API / context / similar code
// always look the same.

import type { Source } from '../api/contract.ts';

export const SOURCE_META: Record<Source, { label: string; short: string; letter: string; color: string; soft: string }> = {
  api: { label: 'API knowledge', short: 'API', letter: 'A', color: '#4361c2', soft: '#e8edfb' },
  context: { label: 'Repository context', short: 'Context', letter: 'X', color: '#178a7a', soft: '#e3f4f1' },
  similar: { label: 'Similar code', short: 'Similar code', letter: 'S', color: '#c0701c', soft: '#fbefe1' },
};

/** Colors for conditions / methods in charts, chosen to stay apart from each other on a white background. */
export const SERIES_COLORS = ['#4361c2', '#178a7a', '#c0701c', '#8a4fb8', '#c2405b', '#5b7083', '#3f8f3f', '#b38b00', '#2f7fb8', '#9c5a3c'];

export const seriesColor = (i: number) => SERIES_COLORS[i % SERIES_COLORS.length]!;

/** A factorial cell id (`A1X0S1`) for a set of switched-on sources. */
export function cellId(s: Record<Source, boolean>): string {
  return `A${s.api ? 1 : 0}X${s.context ? 1 : 0}S${s.similar ? 1 : 0}`;
}

export type EvidenceStage = 'fused' | 'cut' | 'duplicate' | 'below-keep' | 'refined' | 'leak' | 'other';

/** What happened to an evidence item, read from the fusion's reason (the reason text itself is always shown too). */
export function evidenceStage(e: { kept: boolean; fusedRank: number | null; reason: string }): EvidenceStage {
  if (e.fusedRank !== null) return 'fused';
  const r = e.reason.toLowerCase();
  if (r.startsWith('leak suspect')) return 'leak';
  if (r.startsWith('duplicate')) return 'duplicate';
  if (r.startsWith('below the top')) return 'below-keep';
  if (r.startsWith('outside the fused') || r.startsWith('over the per-source cap') || r.startsWith('beyond the')) return 'cut';
  if (r.includes('refinement')) return 'refined';
  return e.kept ? 'fused' : 'other';
}

export const STAGE_LABEL: Record<EvidenceStage, string> = {
  fused: 'fused',
  cut: 'not in top K',
  duplicate: 'duplicate',
  'below-keep': 'below keep fraction',
  refined: 'removed by API refinement',
  leak: 'leak suspect',
  other: 'dropped',
};
