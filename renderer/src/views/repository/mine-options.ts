// The "Find tasks" options as typed (text fields) and as repo.mine takes them: an empty field leaves the engine's
// default; a number that is not a whole number in range is an error named at its field.

import type { CallInput } from '../../api/contract.ts';

export interface MineDraft {
  testCommand: string;
  limit: string;
  minDocWords: string;
  seed: string;
}

export const EMPTY_MINE_DRAFT: MineDraft = { testCommand: '', limit: '', minDocWords: '', seed: '' };

type MineOptions = Omit<CallInput<'repo.mine'>, 'path' | 'out'>;

/** The numeric fields, with the range each takes (the contract's) and what the error says. */
const WHOLE: { key: 'limit' | 'minDocWords' | 'seed'; min: number; max: number; what: string }[] = [
  { key: 'limit', min: 1, max: 1_000_000, what: 'a whole number of tasks, at least 1' },
  { key: 'minDocWords', min: 0, max: 1000, what: 'a whole number of words, 0 to 1000' },
  { key: 'seed', min: 0, max: 2 ** 31 - 1, what: 'a whole number, 0 or more' },
];

/** The options the draft asks for, or the fields in error. */
export function mineOptions(d: MineDraft): { value: MineOptions | null; errors: Partial<Record<keyof MineDraft, string>> } {
  const errors: Partial<Record<keyof MineDraft, string>> = {};
  const value: MineOptions = {};
  if (d.testCommand.trim()) value.testCommand = d.testCommand.trim();
  for (const { key, min, max, what } of WHOLE) {
    const text = d[key].trim();
    if (!text) continue;
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min || n > max) errors[key] = what;
    else value[key] = n;
  }
  return Object.keys(errors).length ? { value: null, errors } : { value, errors };
}
