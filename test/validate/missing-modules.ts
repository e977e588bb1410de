// Which benchmark references import a module the validator's interpreter cannot import, and the
// skip reason to print for them: a missing optional package (RepoExec/91 needs botocore) skips
// that one task with what to install, instead of failing `npm test` on a fresh clone.

import { spawnSync } from 'node:child_process';

/** A task id and its reference source. */
export interface ReferenceSource {
  id: string;
  source: string;
}

const DRIVER = [
  'import ast, importlib.util, json, sys',
  'data = json.load(sys.stdin)',
  'pretend = set(data["pretend"])',
  'out = {}',
  'for tid, src in data["rows"]:',
  '    mods = set()',
  '    for n in ast.walk(ast.parse(src)):',
  '        if isinstance(n, ast.Import):',
  '            mods |= {a.name.split(".")[0] for a in n.names}',
  '        elif isinstance(n, ast.ImportFrom) and not n.level and n.module:',
  '            mods.add(n.module.split(".")[0])',
  '    gone = sorted(m for m in mods if m in pretend or importlib.util.find_spec(m) is None)',
  '    if gone:',
  '        out[tid] = gone',
  'print(json.dumps(out))',
].join('\n');

/**
 * Task id -> the top-level modules its reference imports that `python` cannot find. `pretendMissing`
 * names modules to treat as absent even where installed (how the tests check the skip path).
 */
export function missingModules(rows: ReferenceSource[], python: string, pretendMissing: string[] = []): Map<string, string[]> {
  const input = JSON.stringify({ rows: rows.map((r) => [r.id, r.source]), pretend: pretendMissing });
  const r = spawnSync(python, ['-I', '-c', DRIVER], { input, encoding: 'utf8' });
  if (r.error) throw new Error(`cannot run ${python} to find the modules the references import: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${python} failed while finding the modules the references import:\n${r.stderr}`);
  return new Map(Object.entries(JSON.parse(r.stdout) as Record<string, string[]>));
}

/** Why a task is skipped and what to install so it runs (Debian packages the module as python3-<name>). */
export function skipReason(id: string, modules: string[], python: string): string {
  const packages = modules.map((m) => `python3-${m.toLowerCase()}`).join(' ');
  return `${id} skipped: its reference imports ${modules.join(', ')}, which ${python} cannot import; install it (apt-get install ${packages}, as npm install does when run as root) to run this task`;
}
