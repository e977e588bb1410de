// Names in the evidence-fusion view's narrow columns (renderer/src/views/task/short-name.ts): shortened in the
// middle so the last dotted segment — the function or method — stays whole and the name stays recognisable.

import { describe, expect, it } from 'vitest';
import { shortName } from '../../renderer/src/views/task/short-name.ts';

const shown = (s: { lead: string; last: string }) => s.lead + s.last;

describe('shortName', () => {
  it('leaves a name that fits as it is, split before its last segment', () => {
    expect(shortName('pkg.money.Money.from_decimal')).toEqual({ lead: 'pkg.money.Money.', last: 'from_decimal', shortened: false });
    expect(shortName('add_tax')).toEqual({ lead: '', last: 'add_tax', shortened: false });
  });

  it('cuts the middle, never the last segment, keeping the enclosing class and the first package', () => {
    const s = shortName('tests.test_filesize.TestFilesize.test_binary_prefix', 40);
    expect(s).toEqual({ lead: 'tests…TestFilesize.', last: 'test_binary_prefix', shortened: true });
    expect(shown(s).length).toBeLessThanOrEqual(40);
  });

  it('keeps a short first segment (the top package) rather than one more middle segment', () => {
    expect(shortName('pkg.formatting.filesize_helpers.BINARY_PREFIXES', 44)).toEqual({
      lead: 'pkg…filesize_helpers.',
      last: 'BINARY_PREFIXES',
      shortened: true,
    });
  });

  it('keeps as many segments from the right as fit', () => {
    const s = shortName('a.very.deeply.nested.package.module.Klass.method', 30);
    expect(s.last).toBe('method');
    expect(s.lead.endsWith('module.Klass.')).toBe(true);
    expect(s.lead).toContain('…');
    expect(shown(s).length).toBeLessThanOrEqual(30);
  });

  it('keeps a last segment longer than the budget whole', () => {
    const last = 'test_that_a_really_long_test_name_is_never_cut_in_the_middle';
    const s = shortName(`tests.unit.TestThing.${last}`, 30);
    expect(s.last).toBe(last);
    expect(s.lead).toBe('…');
    expect(s.shortened).toBe(true);
  });

  it('cuts the first segment by characters when not even it fits', () => {
    const s = shortName('averyveryverylongpackagename.mod.f', 20);
    expect(s.last).toBe('f');
    expect(shown(s).length).toBeLessThanOrEqual(20);
    expect(s.lead.startsWith('averyvery')).toBe(true);
  });

  it('leaves names that are not dotted code names alone', () => {
    expect(shortName('module header: pkg/money.py', 10)).toEqual({ lead: '', last: 'module header: pkg/money.py', shortened: false });
    expect(shortName('.hidden', 3).last).toBe('.hidden');
    expect(shortName('trailing.', 3).last).toBe('trailing.');
  });
});
