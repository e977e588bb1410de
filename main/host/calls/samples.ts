// Calls over sample sets generated elsewhere: samples.passk (the official Pass@k of a sample file), and the one reader
// of a published set every call uses (ops/samples.ts: samples.passk, experiment.estimate / start with `samples`,
// import.samples).

import { officialCounts, passAtKOf } from '../../benchmarks/samples.ts';
import { messageOf } from '../jobs.ts';
import { readSampleInput } from '../ops/samples.ts';
import { fail } from '../workspace.ts';
import type { CallTable } from './index.ts';

export function sampleCalls(): CallTable<'samples.passk'> {
  return {
    'samples.passk': ({ path: input, format, ks, kOverN }) => {
      const set = readSampleInput('path', input, format);
      try {
        const report = passAtKOf(
          officialCounts(set.tasks),
          [...new Set(ks)].sort((a, b) => a - b),
          kOverN,
        );
        return { path: set.source, format: set.format, ...report };
      } catch (err) {
        if (err instanceof RangeError) fail('invalid-input', messageOf(err), [{ path: 'path', message: messageOf(err) }]);
        throw err;
      }
    },
  };
}
