// Calls over sample sets generated elsewhere: samples.passk (the official Pass@k of a sample file), and the one reader
// of a published set every call uses (samples.passk, experiment.estimate / start with `samples`, import.samples).

import { officialCounts, passAtKOf, readSamples, SampleFormatError, type SampleFormat, type SampleSet } from '../../benchmarks/samples.ts';
import { messageOf } from '../jobs.ts';
import { fail } from '../workspace.ts';
import type { CallTable } from './index.ts';

/**
 * A published sample set, read as `opencoder samples import` and `passk` read it: a RepoExec results folder, a
 * CoderEval *_out.jsonl, a bigcode or EvalPlus file or folder, or a set written by an import. What cannot be read is
 * an invalid-input failure naming the field and the path.
 */
export function readSampleInput(field: string, input: string, format: SampleFormat | 'auto' = 'auto'): SampleSet {
  try {
    return readSamples(input, { format });
  } catch (err) {
    if (err instanceof SampleFormatError) {
      const message = messageOf(err).includes(input) ? messageOf(err) : `${input}: ${messageOf(err)}`;
      fail('invalid-input', `Cannot read the sample set: ${message}`, [{ path: field, message }]);
    }
    // The file system's own refusal (a folder where a file was expected, no permission): said with the path.
    const code = (err as NodeJS.ErrnoException | null)?.code;
    if (typeof code === 'string') {
      const message = `cannot read ${input} (${code}: ${messageOf(err)})`;
      fail('invalid-input', `Cannot read the sample set: ${message}`, [{ path: field, message }]);
    }
    throw err;
  }
}

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
