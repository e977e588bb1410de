// Keeps the size exceptions in eslint.config.js (LONG_FILES, LONG_FUNCTIONS) equal to what needs them: ESLint
// already fails on a long file or function that is not listed; this fails on a listed file that is short enough now
// (or gone), so an exception cannot outlive its reason. `--list` prints every file that breaks a size rule today,
// listed or not, with the numbers.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { LONG_FILES, LONG_FUNCTIONS, SIZED, SIZE_RULES } from '../eslint.config.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Lints `files` (or everything SIZED) with only the size rules, without the exceptions: { file: { rule: [messages] } }. */
async function sizeFindings(files) {
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    allowInlineConfig: false,
    overrideConfig: [
      { files: ['**/*.{ts,tsx,mts}'], languageOptions: { parser: tseslint.parser } },
      { files: SIZED, rules: SIZE_RULES },
    ],
  });
  const out = {};
  for (const r of await eslint.lintFiles(files)) {
    for (const m of r.messages.filter((m) => m.ruleId in SIZE_RULES)) {
      const file = path.relative(ROOT, r.filePath).split(path.sep).join('/');
      ((out[file] ??= {})[m.ruleId ?? 'parse'] ??= []).push(m.message);
    }
  }
  return out;
}

if (process.argv.includes('--list')) {
  const found = await sizeFindings(SIZED);
  for (const [file, rules] of Object.entries(found).sort())
    for (const [rule, msgs] of Object.entries(rules)) console.log(`${file}  ${rule}: ${msgs.join(' | ')}`);
  process.exit(0);
}

const problems = [];
const lists = [
  ['LONG_FILES', LONG_FILES, 'max-lines'],
  ['LONG_FUNCTIONS', LONG_FUNCTIONS, 'max-lines-per-function'],
];
for (const [name, list] of lists) {
  const seen = new Set();
  for (const { file, reason } of list) {
    if (seen.has(file)) problems.push(`${name}: ${file} is listed twice`);
    seen.add(file);
    if (!reason) problems.push(`${name}: ${file} has no reason`);
    if (!fs.existsSync(path.join(ROOT, file))) problems.push(`${name}: ${file} does not exist any more; remove its entry`);
  }
}
const listed = [...new Set(lists.flatMap(([, list]) => list.map((e) => e.file)))].filter((f) => fs.existsSync(path.join(ROOT, f)));
const found = listed.length ? await sizeFindings(listed) : {};
for (const [name, list, rule] of lists) {
  for (const { file } of list) {
    if (fs.existsSync(path.join(ROOT, file)) && !found[file]?.[rule]) problems.push(`${name}: ${file} no longer breaks ${rule}; remove its entry`);
  }
}
if (problems.length) {
  for (const p of problems) console.log(p);
  console.error(`check-size-exceptions: ${problems.length} stale or malformed size exception(s) in eslint.config.js`);
  process.exit(1);
}
console.log(`check-size-exceptions: all ${LONG_FILES.length + LONG_FUNCTIONS.length} size exceptions are still needed.`);
