// The IMPORT.md a CoderEval import writes: what was imported, what was dropped and why, and every warning, so
// an analyst can see what the manifest covers without reading the importer.

import { CODEREVAL_TEMPLATE_TEST } from './codereval-template.ts';
import { counts } from '../model/format.ts';
import { DEFAULT_PLACEHOLDER } from '../model/task.ts';
import { droppedSection, mdEscape, warningsSection } from './import-out.ts';
import type { CoderEvalImportResult } from './codereval.ts';

const DROP_REASONS: Record<string, string> = {
  'no-tests':
    'No tests in the staged CoderEval data: the harness (per-task `*_passk_validte.py` files in the project checkouts) lives only in the Docker image. Supply a test template (`--templates`) or a record with `test_command` + `file_content` (`--records`) to make such a record runnable.',
  'bad-template': 'A test template exists but cannot become a check program (see each message).',
  'unsafe-path': 'The record names an id or a path that is absolute, contains `..` or could escape the output folder; nothing of it was written.',
  'incomplete-record': 'The record lacks what a task needs (a signature, a name, a file path for its test command, …).',
  'target-not-found': 'The record’s `file_content` does not define the target function, so the validator could not splice a candidate into it.',
};

// ---------------------------------------------------------------------------------------------
// IMPORT.md

export function renderReport(r: CoderEvalImportResult): string {
  const c = r.counts;
  const L: string[] = [];
  L.push('# CoderEval (Python) import', '');
  L.push(
    `Made by \`opencoder import codereval\` from \`${r.benchDir}\` (requirements from the ${r.docstrings === 'human' ? 'human-written' : 'original'} docstrings).`,
  );
  L.push('Re-running the importer into this folder replaces `repos/`, `tasks.jsonl`, `metadata.jsonl` and this file.', '');
  L.push('## Inputs', '');
  L.push(`- prompts: ${r.inputs.prompts ? `\`${r.inputs.prompts}\`` : 'none'}`);
  L.push(`- metadata (project, file, level, ChatGPT samples): ${r.inputs.metadata ? `\`${r.inputs.metadata}\`` : 'none'}`);
  L.push(`- records file: ${r.inputs.records ? `\`${r.inputs.records}\`` : 'none (CoderEval4Python.json is not staged)'}`);
  L.push(`- test templates: ${r.inputs.templates ? `\`${r.inputs.templates}\` (${c.templatesRead} read)` : 'none'}`, '');
  L.push('## Totals', '');
  L.push(`- records: ${c.records} (all of them in metadata.jsonl); with a reference solution: ${c.withReference}`);
  L.push(`- tasks in tasks.jsonl: ${c.tasks} (${c.templateTasks} check-template, ${c.repositoryTasks} repository + test_command)`);
  L.push(`- not runnable: ${c.dropped}${c.dropped ? ` (${counts(r.dropped)})` : ''}`);
  L.push(`- accounted for: ${c.tasks} + ${c.dropped} = ${c.tasks + c.dropped} of ${c.records}`);
  L.push(`- warnings: ${counts(r.warningCounts)}`, '');
  L.push('## Levels', '');
  L.push('| level | records | tasks |', '| --- | ---: | ---: |');
  for (const [lv, n] of Object.entries(r.levels)) L.push(`| ${lv} | ${n.records} | ${n.tasks} |`);
  L.push('', '## Tasks', '');
  if (!r.tasks.length) L.push('None: no record carries its tests (see below).');
  for (const t of r.tasks) L.push(`- \`${t.id}\` (${t.level ?? 'level unknown'}): ${t.shape === 'template' ? 'check template' : 'repository + test_command'}`);
  L.push('', '## How tasks are made', '');
  L.push(
    '- A test template `<name>_<_id>.py` becomes a `check_template`: its `<insert generated code here>` marker becomes',
    `  \`${DEFAULT_PLACEHOLDER}\` at the indentation of the code around it, a prelude records every dict the program prints,`,
    `  and an appended \`${CODEREVAL_TEMPLATE_TEST}\` requires every case of the last printed dict to be True (CoderEval's criterion).`,
    '  The template runs as `__main__`, so its own runner computes the cases when the program loads.',
    '- A record with `test_command` and `file_content` becomes a repository task over `repos/<_id>/<file_path>` (plus its',
    '  `test_files`); the target is the def named by the record at its `lineno`.',
    '- Template tasks get `repos/<_id>/` with the record’s `file_content` when the records file has it, else an empty folder:',
    '  the module around the target is then only in the check template.',
    '',
  );
  L.push(
    ...droppedSection(
      r.dropped,
      r.droppedEntries,
      DROP_REASONS,
      (d) =>
        `- \`${mdEscape(d.id)}\` ${d.name ? `\`${mdEscape(d.name)}\`` : '(no name)'} — ${d.project ? mdEscape(d.project) : 'project unknown'}, ${d.level ?? 'level unknown'}: ${mdEscape(d.message)}`,
    ),
  );
  L.push(...warningsSection(r.warnings, r.outDir));
  return L.join('\n');
}
