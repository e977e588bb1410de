// IMPORT.md: what an import read, wrote, merged and dropped (each drop reason explained, each dropped
// line listed) and every warning, with output paths relative to the output folder.

import { counts } from '../../model/format.ts';
import { mdEscape, warningsSection } from '../import-out.ts';
import type { BuiltProject } from './project.ts';
import type { RepoExecImportResult } from './types.ts';

/** What each drop reason of building a project means (the reasons rec.drop is given). */
const DROP_REASONS: Record<string, string> = {
  'garbage-line': 'a line of a view that does not parse (extractor residue such as `.` or `from x y`), removed',
  'stray-name': 'a module-level statement that is only a name (`configuration`): residue of a broken import, removed',
  'external-import': 'a definition shown in a view but imported there from outside the project (no file to put it in)',
  'imported-from-package': 'a definition imported from a package (`from pkg import X`): likely a re-export, real module unknown',
  'defined-elsewhere': 'imported from module X, but the views show it defined in another module: X probably re-exports it',
  'conflicting-imports': 'views import the same name from different modules and none shows where it is defined',
  'star-import': 'a public name in a view that also star-imports a project module: it may come from there',
  'attribute-reference': 'the view uses the name through an imported project module (`pkg.mod.Name`): it may live there',
  'unrepairable-view': "a view that still did not parse after repair: only its focal function was used (and a task's view holds only its reference)",
  'invalid-after-merge': 'a merged definition that made its module unparseable, removed',
};

export function renderReport(r: RepoExecImportResult, built: BuiltProject[]): string {
  const c = r.counts;
  const L: string[] = [];
  L.push('# RepoExec import', '');
  L.push(`Made by \`opencoder import repoexec\` from \`${r.benchDir}\`${r.subset ? ` (subset \`${r.subset}\`)` : ''}.`);
  L.push('Re-running the importer into this folder replaces `repos/`, `views/`, `tasks.jsonl` and this file.', '');
  L.push('## Totals', '');
  L.push(`- raw rows read: ${c.rows} (pass_data + failed_data)`);
  L.push(`- projects: ${c.projects}; modules: ${c.modules}; .py files: ${c.files} (package \`__init__.py\` files included)`);
  L.push(`- definitions written: ${c.functions} functions, ${c.methods} methods, ${c.classes} classes; focal functions placed: ${c.focalFunctions}`);
  L.push(`- body-less stubs given \`...\`: ${c.stubsFilled}`);
  L.push(`- tasks in tasks.jsonl: ${c.tasks}`);
  L.push(`- task views in views/: ${c.views}${c.viewsFromReference ? ` (${c.viewsFromReference} holding only the reference: unrepairable-view)` : ''}`);
  L.push(`- dropped: ${counts(r.dropped, 'nothing')}`);
  L.push(`- warnings: ${counts(r.warningCounts)}`, '');
  L.push('## Projects', '');
  L.push('| project | repository | rows | modules (own rows + attributed) | files | functions | methods | classes | tasks |');
  L.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const p of r.projects) {
    L.push(
      `| ${p.project} | ${p.repo} | ${p.rows} | ${p.rowModules} + ${p.attributedModules} | ${p.files} | ${p.functions} | ${p.methods} | ${p.classes} | ${p.tasks} |`,
    );
  }
  L.push('', '## Modules', '');
  for (const b of built) {
    L.push(`- ${b.project}: ${b.modules.map((m) => `\`${m.file}\`${m.fromRows ? '' : ' (attributed only)'}`).join(', ')}`);
  }
  L.push('', '## How modules are rebuilt', '');
  L.push(
    '- Every row (pass_data and failed_data) contributes its `code` view and its `focal_function`. Views are repaired first:',
    '  a block header with no body (a stub) gets `...`; a line the parser still rejects is dropped (`garbage-line`).',
    "- A module's file is the union of what its own views show (imports, constants, statements, functions, classes)",
    '  plus definitions that views of other modules import from it by name (`from .validation import is_string`).',
    '- The focal function is the reference implementation and always wins; otherwise a full body beats a docstring-only',
    '  stub, which beats a body-less one (longer text breaks ties). Classes are merged member by member.',
    '- A definition is only moved to another module when the import that brings it is explicit and that module is not a',
    '  package (a package usually re-exports). Names that a view could have received through a star import or through',
    '  an imported module (`pkg.mod.Name`) stay only if another view confirms where they live.',
    '- Order: `from __future__` imports, imports, then definitions in the order they first appear (own rows by problem id first).',
    '',
  );
  L.push('## Task views (views/)', '');
  L.push(
    "- `views/<task>/<file>` holds one task's own view, named by the task's `task_view` in tasks.jsonl (`<task>` is the task",
    "  id with `/` and other unsafe characters as `_`: `RepoExec/12` → `RepoExec_12`; `<file>` is the task's `file`).",
    "- It is the row's own `code` view after the repair above (stubs given `...`, garbage lines dropped): the target's module",
    '  with its imports and constants, its in-file and cross-file dependencies as signatures and docstrings (stubs), and the',
    '  target last. Empty `__init__.py` files make its folders packages, so its module name is the same as in `repos/`.',
    "- Why: the paper's RQ4 indexes each task's own module view, dependencies as stubs, as the task's API pool, instead of the",
    '  whole rebuilt repository (`eval-api --protocol task-view`). A view that does not parse even after repair is replaced by',
    '  the reference solution alone (`unrepairable-view`).',
    '',
  );
  L.push('## Dropped, by reason', '');
  for (const [reason, n] of Object.entries(r.dropped)) {
    L.push(`### ${reason} (${n})`, '', DROP_REASONS[reason] ?? '', '');
    for (const d of r.droppedEntries.filter((x) => x.reason === reason)) {
      L.push(`- ${d.project} \`${d.module}\` (problem ${d.problemId}): \`${mdEscape(d.what)}\``);
    }
    L.push('');
  }
  L.push(...warningsSection(r.warnings, r.outDir));
  return L.join('\n');
}
