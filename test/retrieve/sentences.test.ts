// Where the offline decomposition splits a requirement into steps: at the end of a sentence, never inside one at an
// ellipsis, an abbreviation or a number — the same split in retrieval's fallback and in the offline backend's reply.

import { describe, expect, it } from 'vitest';
import { llmDecomposer } from '../../main/generate/generate.ts';
import { OfflineBackend } from '../../main/generate/offline-backend.ts';
import { fallbackSteps, sentences } from '../../main/retrieve/decompose.ts';

describe('sentences: where a requirement splits into steps', () => {
  it('keeps a sentence whole across an ellipsis, written as one character or as three dots', () => {
    expect(sentences('Accept any number of values… Then sum them. Return the total.')).toEqual([
      'Accept any number of values… Then sum them.',
      'Return the total.',
    ]);
    expect(sentences('Walk the items 1, 2, ... n in order. Stop at the first None.')).toEqual([
      'Walk the items 1, 2, ... n in order.',
      'Stop at the first None.',
    ]);
    expect(sentences('Wait... Then retry once.')).toEqual(['Wait... Then retry once.']);
  });

  it('does not split at e.g., i.e., etc. or other abbreviations, in any case', () => {
    expect(sentences('Accept a unit, e.g. MiB or KiB. Return bytes.')).toEqual(['Accept a unit, e.g. MiB or KiB.', 'Return bytes.']);
    expect(sentences('Parse the prefix, i.e. Kilo or Mega. Scale the number.')).toEqual(['Parse the prefix, i.e. Kilo or Mega.', 'Scale the number.']);
    expect(sentences('Handle lists, tuples, sets etc. When empty, return 0.')).toEqual(['Handle lists, tuples, sets etc. When empty, return 0.']);
    expect(sentences('E.g. Windows paths use backslashes. Normalise them.')).toEqual(['E.g. Windows paths use backslashes.', 'Normalise them.']);
    expect(sentences('Compare old vs. New values. Report changes.')).toEqual(['Compare old vs. New values.', 'Report changes.']);
    expect(sentences('See Fig. 2 for the layout. Draw it.')).toEqual(['See Fig. 2 for the layout.', 'Draw it.']);
  });

  it('does not split inside a decimal, a version or a dotted name', () => {
    expect(sentences('Multiply by 1.5 when the size exceeds 2.25 MB. Round down.')).toEqual(['Multiply by 1.5 when the size exceeds 2.25 MB.', 'Round down.']);
    expect(sentences('Use os.path.join on Python 3.12. Return the path.')).toEqual(['Use os.path.join on Python 3.12.', 'Return the path.']);
  });

  it('ends a sentence at . ? ! and ;, also before a closing bracket or quote, but not before a lower-case word', () => {
    expect(sentences('Is it empty? Return None! Otherwise sort it; then return it.')).toEqual([
      'Is it empty?',
      'Return None!',
      'Otherwise sort it;',
      'then return it.',
    ]);
    expect(sentences('Strip the suffix (see the parser.) Return the stem. Say "done." Then stop.')).toEqual([
      'Strip the suffix (see the parser.)',
      'Return the stem.',
      'Say "done."',
      'Then stop.',
    ]);
    expect(sentences('Round to approx. five places. return the value.')).toEqual(['Round to approx. five places. return the value.']);
    // "no." is a word, not the abbreviation "No.", when written in lower case.
    expect(sentences('Answer yes or no. Then log it.')).toEqual(['Answer yes or no.', 'Then log it.']);
  });

  it('drops doctest examples (with their continuation lines) and reST fields, but keeps prose lines that start with dots', () => {
    const doc = ['Sum the values 1, 2,', '... up to n. Return the sum.', '', '>>> total(3)', '... # continued', '6', '', ':param n: the last value'].join('\n');
    expect(sentences(doc)).toEqual(['Sum the values 1, 2, ... up to n.', 'Return the sum.']);
  });

  it('the fallback decomposition makes one step per sentence so split', () => {
    const steps = fallbackSteps(
      { requirement: 'Format the size, e.g. 1.5 KiB… or 2 MiB. Use binary prefixes.', signature: 'def human(n: int) -> str:' },
      { minSteps: 2, maxSteps: 6 },
    );
    expect(steps.slice(1).map((s) => s.text)).toEqual(['Format the size, e.g. 1.5 KiB… or 2 MiB.', 'Use binary prefixes.']);
  });

  it("the offline backend's decomposition splits the same way", async () => {
    const requirement = 'Format the size, e.g. 1.5 KiB… or 2 MiB. Use binary prefixes, i.e. KiB, MiB etc. Return the text.';
    const steps = await llmDecomposer(new OfflineBackend()).decompose({ requirement, signature: 'def human(n: int) -> str:' }, { minSteps: 2, maxSteps: 6 });
    expect(steps.map((s) => s.text)).toEqual(sentences(requirement));
    expect(steps.map((s) => s.text)).toEqual(['Format the size, e.g. 1.5 KiB… or 2 MiB.', 'Use binary prefixes, i.e. KiB, MiB etc. Return the text.']);
  });
});
