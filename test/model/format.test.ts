// The one set of number-writing rules (main/model/format.ts) that the CLI, the reports and the UI share.

import { describe, expect, it } from 'vitest';
import { bytes, duration, fixed, int, interval, percent, plural, pValue, signed, usd } from '../../main/model/format.ts';

describe('number formatting', () => {
  it('writes fixed decimals without a negative zero, and a marker for what is missing', () => {
    expect(fixed(0.41234)).toBe('0.412');
    expect(fixed(-0.0001)).toBe('0.000');
    expect(fixed(-0.25, 1)).toBe('-0.3');
    expect(fixed(Number.NaN)).toBe('n/a');
    expect(fixed(null, 3, '—')).toBe('—');
    expect(fixed(Number.POSITIVE_INFINITY)).toBe('n/a');
  });

  it('signs differences and never signs zero', () => {
    expect(signed(0.12)).toBe('+0.120');
    expect(signed(-0.04)).toBe('-0.040');
    expect(signed(-0.0002)).toBe('0.000');
    expect(signed(0.0002)).toBe('0.000');
  });

  it('writes money as $0, cents from a dollar up and three significant digits below', () => {
    expect(usd(0)).toBe('$0');
    expect(usd(12.345)).toBe('$12.35');
    expect(usd(0.0123)).toBe('$0.0123');
    expect(usd(0.000845)).toBe('$0.000845');
    expect(usd(0.5)).toBe('$0.500');
    expect(usd(null)).toBe('n/a');
    expect(usd(undefined, 'unknown')).toBe('unknown');
  });

  it('writes intervals, p-values, percentages and counts', () => {
    expect(interval({ estimate: 0.4, lo: 0.35, hi: 0.47 })).toBe('0.400 [0.350, 0.470]');
    expect(interval({ estimate: 0.4, lo: Number.NaN, hi: Number.NaN })).toBe('0.400');
    expect(pValue(0.0004)).toBe('p < 0.001');
    expect(pValue(0.0341)).toBe('p = 0.034');
    expect(percent(0.4123)).toBe('41.2 %');
    expect(int(12345.4)).toBe('12,345');
    expect(plural(1, 'task')).toBe('1 task');
    expect(plural(1204, 'task')).toBe('1,204 tasks');
  });

  it('writes durations and sizes in the unit a person reads', () => {
    expect(duration(850)).toBe('850 ms');
    expect(duration(12_300)).toBe('12 s');
    expect(duration(185_000)).toBe('3 min 05 s');
    expect(duration(3_720_000)).toBe('1 h 02 min');
    expect(duration(-5)).toBe('n/a');
    expect(bytes(512)).toBe('512 B');
    expect(bytes(3.4 * 1024)).toBe('3.4 KiB');
    expect(bytes(12 * 1024 * 1024)).toBe('12.0 MiB');
  });
});
