// An evidence item for tests of fusion and the leakage audit: every field a trace's item has, the given ones set.

import type { Evidence } from '../../main/model/trace.ts';

export function evidenceItem(fields: Partial<Evidence> & Pick<Evidence, 'key'>): Evidence {
  return {
    source: 'similar',
    step: 0,
    rank: 0,
    finders: ['vector'],
    title: fields.key,
    module: 'm',
    qualname: fields.key,
    file: 'm.py',
    startLine: 1,
    endLine: 1,
    text: fields.key,
    r: 0,
    w: 0,
    u: 0,
    signals: [],
    gamma: 0,
    kept: true,
    reason: '',
    provenance: [],
    ...fields,
  };
}
