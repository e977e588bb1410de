// Calls over sample sets generated elsewhere: samples.passk (the official Pass@k of a sample file).

import { officialCounts, passAtKOf, readSamples, SampleFormatError } from '../../benchmarks/samples.ts';
import { messageOf } from '../jobs.ts';
import { fail } from '../workspace.ts';
import type { CallTable } from './index.ts';

export function sampleCalls(): CallTable<'samples.passk'> {
  return {
    'samples.passk': ({ path: input, format, ks, kOverN }) => {
      try {
        const set = readSamples(input, { format });
        const report = passAtKOf(
          officialCounts(set.tasks),
          [...new Set(ks)].sort((a, b) => a - b),
          kOverN,
        );
        return { path: set.source, format: set.format, ...report };
      } catch (err) {
        if (err instanceof SampleFormatError || err instanceof RangeError) fail('invalid-input', messageOf(err), [{ path: 'path', message: messageOf(err) }]);
        throw err;
      }
    },
  };
}
