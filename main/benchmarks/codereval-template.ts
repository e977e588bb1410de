// CoderEval check templates: turning a test template (`<name>_<_id>.py` with an `<insert generated
// code here>` marker that prints a `test_cases` dict of booleans) into the check program the
// validator runs. Kept apart from the importer (codereval.ts, which re-exports it) so that each
// file stays one job: this one is pure text, with no files and no records.

import { DEFAULT_PLACEHOLDER } from '../model/task.ts';

/** The marker CoderEval's test templates carry where the generated code goes. */
export const CODEREVAL_TEMPLATE_MARKER = '<insert generated code here>';
/** The test the importer appends to a template: every printed case must be True. */
export const CODEREVAL_TEMPLATE_TEST = 'test_codereval_cases';

export interface CheckProgram {
  template: string;
  placeholder: string;
}

const PRELUDE = [
  '# --- added by `opencoder import codereval`: the template reports its cases by printing a dict;',
  `# ${CODEREVAL_TEMPLATE_TEST} below requires every case of the last printed dict to be True.`,
  'import builtins as _opencoder_builtins',
  '_opencoder_printed = []',
  '',
  '',
  'def print(*args, **kwargs):',
  '    for _a in args:',
  '        if isinstance(_a, dict):',
  '            _opencoder_printed.append(dict(_a))',
  '    return _opencoder_builtins.print(*args, **kwargs)',
  '# --- end of the added prelude',
  '',
].join('\n');

const EPILOGUE = [
  '',
  '',
  '# --- added by `opencoder import codereval`: CoderEval passes a candidate when every printed case is True.',
  `def ${CODEREVAL_TEMPLATE_TEST}():`,
  '    if not _opencoder_printed:',
  '        raise AssertionError("the template printed no test_cases dict")',
  '    cases = _opencoder_printed[-1]',
  '    if not cases:',
  '        raise AssertionError("the template printed an empty test_cases dict")',
  '    failed = {k: v for k, v in cases.items() if v is not True}',
  '    if failed:',
  '        raise AssertionError("cases not True: %r" % (failed,))',
  '',
].join('\n');

const leadOf = (line: string) => /^[ \t]*/.exec(line)![0];

/**
 * Turns a CoderEval test template into a check program the validator runs: the marker becomes
 * DEFAULT_PLACEHOLDER (a comment, so the template parses) at the indentation of the code around
 * it, a prelude records what the template prints, and a test function asserts every printed
 * case is True. The template's own `if __name__ == "__main__":` runner stays: the validator runs
 * the program as `__main__`, so the cases are computed when it loads.
 */
export function checkProgramFromTemplate(text: string): CheckProgram | { error: string } {
  const src = text.replace(/\r\n?/g, '\n');
  const n = src.split(CODEREVAL_TEMPLATE_MARKER).length - 1;
  if (n === 0) return { error: `no ${CODEREVAL_TEMPLATE_MARKER} marker` };
  if (n > 1) return { error: `the ${CODEREVAL_TEMPLATE_MARKER} marker appears ${n} times` };
  if (src.includes(DEFAULT_PLACEHOLDER)) return { error: `the template already contains ${DEFAULT_PLACEHOLDER}` };
  if (!/\bprint\s*\(/.test(src)) return { error: 'the template prints nothing (no test_cases dict to check)' };
  const lines = src.split('\n');
  const at = lines.findIndex((l) => l.includes(CODEREVAL_TEMPLATE_MARKER));
  const markerLine = lines[at]!;
  if (markerLine.trim() !== CODEREVAL_TEMPLATE_MARKER) return { error: 'the marker shares its line with other code' };
  // Indentation: the marker's own, else the code's around it (a marker between two methods of a
  // class sits at column 0 in CoderEval's templates but belongs inside the class).
  let indent = leadOf(markerLine);
  if (!indent) {
    const isCode = (l: string) => l.trim() !== '' && !l.trim().startsWith('#');
    const prev = lines.slice(0, at).reverse().find(isCode);
    const next = lines.slice(at + 1).find(isCode);
    if (prev !== undefined && next !== undefined && leadOf(prev) && leadOf(next)) indent = leadOf(next);
  }
  lines[at] = indent + DEFAULT_PLACEHOLDER;
  // The prelude goes after `from __future__` imports, which must stay first.
  let insertAt = 0;
  for (let i = 0; i < lines.length; i++) {
    if (/^from\s+__future__\s+import\b/.test(lines[i]!)) {
      let j = i;
      if (lines[i]!.includes('(')) while (j < lines.length - 1 && !lines[j]!.includes(')')) j++;
      insertAt = j + 1;
    }
  }
  if (insertAt > at) return { error: 'the marker comes before the template’s `from __future__` imports' };
  const body = [...lines.slice(0, insertAt), PRELUDE, ...lines.slice(insertAt)].join('\n').replace(/\s+$/, '');
  return { template: body + '\n' + EPILOGUE, placeholder: DEFAULT_PLACEHOLDER };
}
