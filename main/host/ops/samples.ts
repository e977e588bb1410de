// Published sample sets as the engine reads them: one reader for every way in (samples.passk, an experiment's
// `samples`, import.samples, the CLI's --backend imported --samples), and the file the imported backend reads.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readSamples, SampleFormatError, sampleSetLines, type SampleFormat, type SampleSet } from '../../benchmarks/samples.ts';
import { loadSampleSets } from '../../generate/imported-backend.ts';
import { messageOf } from '../jobs.ts';
import { fail, writeAtomic } from '../workspace.ts';

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

/**
 * The file the imported backend reads for a sample set, which takes what samples.passk takes (one reader,
 * readSampleInput above): a set written by an import, or CoderEval's *_out.jsonl, is read as it is; any
 * other input (a RepoExec results folder, bigcode, EvalPlus) is written once as a set in the data folder's
 * sample-sets/converted/, named by its content, and the run uses (and a resume reads) that file.
 */
export function samplesFileIn(dataDir: string, input: string): string {
  const isFile = fs.statSync(input, { throwIfNoEntry: false })?.isFile() === true;
  let set: SampleSet;
  try {
    set = readSampleInput('samples', input);
  } catch (err) {
    // A JSONL file in one of the imported backend's own looser shapes ({id, candidates: [...]}) is still read as it is.
    if (isFile && readsAsImported(input)) return input;
    throw err;
  }
  if (isFile && (set.format === 'set' || set.format === 'codereval')) return input;
  const lines = sampleSetLines(set);
  const hash = createHash('sha256').update(lines).digest('hex').slice(0, 12);
  const name =
    path
      .basename(set.source)
      .replace(/\.jsonl?$/i, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[.-]+/, '') || 'samples';
  const file = path.join(dataDir, 'sample-sets', 'converted', `${name}-${hash}.jsonl`);
  if (!fs.existsSync(file)) {
    try {
      writeAtomic(file, lines);
    } catch (err) {
      fail('engine', `Cannot write the sample set read from ${input} to ${file}: ${(err as Error).message}`);
    }
  }
  return file;
}

function readsAsImported(file: string): boolean {
  try {
    return loadSampleSets(file).length > 0;
  } catch {
    return false;
  }
}
