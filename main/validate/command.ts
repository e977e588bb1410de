// A task's test command, read the way a POSIX shell would read a plain command line: environment
// assignments in front (`PYTHONPATH=. DEBUG=1 python3 -m unittest …`), then the interpreter or
// pytest, then its arguments. Only unittest and pytest commands are accepted: a verdict needs
// per-test evidence, which the validator's runner collects through those two frameworks.

import path from 'node:path';
import { OpenCoderError } from '../model/errors.ts';

export interface TestCommand {
  mode: 'unittest' | 'pytest';
  args: string[];
  /** Assignments in front of the command, in order (values as written; PYTHONPATH entries are relative to the repository). */
  env: Record<string, string>;
  /** PYTHONPATH's entries, when the command sets it. */
  pythonPath: string[];
  /** The interpreter the command names by path (`.venv/bin/python -m pytest`, `/opt/py/bin/pytest`), else null. */
  interpreter: string | null;
}

export class TestCommandError extends OpenCoderError {
  constructor(message: string) {
    super('unsupported', message);
  }
}

/** Splits a command line like a POSIX shell would for plain words and quotes (no expansions). */
export function shellWords(cmd: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < cmd.length && '"\\$`'.includes(cmd[i + 1]!)) cur += cmd[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < cmd.length) {
      cur += cmd[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
    }
  }
  if (quote) throw new TestCommandError('unterminated quote');
  if (has || cur) out.push(cur);
  return out;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;
const PYTHON = /^python(\d+(\.\d+)?)?(\.exe)?$/;
// Variables that would change which interpreter runs or what it loads behind the task's back.
const REFUSED_VARS = new Set(['PYTHONHOME', 'PYTHONSTARTUP', 'PYTHONINSPECT', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'PYTHONEXECUTABLE']);

/** `[VAR=value …] python3 -m unittest …`, `… python -m pytest …`, `… pytest …` → mode, arguments and environment. */
export function parseTestCommand(cmd: string): TestCommand {
  let words: string[];
  try {
    words = shellWords(cmd);
  } catch (err) {
    throw new TestCommandError(`cannot read test_command "${cmd}": ${(err as Error).message}`);
  }
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length; i++) {
    const m = ASSIGNMENT.exec(words[i]!);
    if (!m) break;
    if (REFUSED_VARS.has(m[1]!))
      throw new TestCommandError(
        `test_command "${cmd}" sets ${m[1]}, which the validator does not pass on (name the interpreter with the task's "python" instead)`,
      );
    env[m[1]!] = m[2]!;
  }
  const exeWord = words[i] ?? '';
  const exe = path.basename(exeWord);
  const named = exeWord.includes('/') ? exeWord : null;
  const pythonPath = env.PYTHONPATH !== undefined ? env.PYTHONPATH.split(':').filter(Boolean) : [];
  if (exe === 'pytest' || exe === 'py.test') {
    return { mode: 'pytest', args: words.slice(i + 1), env, pythonPath, interpreter: named ? path.join(path.dirname(named), 'python') : null };
  }
  if (PYTHON.test(exe)) {
    let j = i + 1;
    // interpreter flags before -m (-B, -u, -X opt, -W arg …)
    while (j < words.length && words[j] !== '-m' && words[j]!.startsWith('-')) j += ['-X', '-W'].includes(words[j]!) ? 2 : 1;
    if (words[j] === '-m' && (words[j + 1] === 'unittest' || words[j + 1] === 'pytest')) {
      return { mode: words[j + 1] as 'unittest' | 'pytest', args: words.slice(j + 2), env, pythonPath, interpreter: named };
    }
  }
  throw new TestCommandError(
    `unsupported test_command "${cmd}": the validator needs per-test evidence, so it runs ` +
      '`[VAR=value …] python3 -m unittest …`, `python3 -m pytest …` or `pytest …` through its own runner',
  );
}
