// The `opencoder` command line. Every command takes --db FILE and --json; with --json the last line
// of stdout is one JSON document. Progress goes to stderr so stdout stays machine-readable.

import { parseArgs } from 'node:util';
import { OpenCoderError, type ErrorCode } from '../../model/errors.ts';
import { defaultDbPath } from '../paths.ts';
import { COMMON, UsageError, type Io } from './kit.ts';
import { COMMANDS } from './commands/registry.ts';

export { UsageError };

const HELP = `opencoder — uncertainty-aware, retrieval-augmented repository-level code generation

Usage: opencoder <command> [options]

Commands:
${'{commands}'}

Every command takes --db FILE (default: ${defaultDbPath()}) and --json (the last line of stdout
is then one JSON document). Exit code 0 means success.`;

function helpText(): string {
  const cmds = Object.entries(COMMANDS)
    .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}\n             ${c.usage}`)
    .join('\n');
  return HELP.replace('{commands}', cmds);
}

function describeError(err: unknown): { kind: string; code?: ErrorCode; message: string } {
  if (err instanceof UsageError) return { kind: 'usage', code: err.code, message: err.message };
  if (err instanceof OpenCoderError) return { kind: err.name, code: err.code, message: err.message };
  const e = err as Error;
  if (e?.name && e.name !== 'Error' && e.message) return { kind: e.name, message: e.message };
  return { kind: 'internal', message: e?.stack ?? String(err) };
}

export async function main(argv: string[], io: Io = { out: (l) => console.log(l), err: (l) => console.error(l) }): Promise<number> {
  const [name, ...rest] = argv;
  const json = rest.includes('--json');
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(helpText());
    return name ? 0 : 2;
  }
  const cmd = COMMANDS[name];
  try {
    if (!cmd) throw new UsageError(`unknown command "${name}". Run opencoder --help for the list.`);
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...COMMON, ...cmd.options }, allowPositionals: true, strict: true });
    } catch (err) {
      throw new UsageError(`${(err as Error).message}\nusage: ${cmd.usage}`);
    }
    if (parsed.values.help) {
      io.out(`${cmd.summary}\nusage: ${cmd.usage}`);
      return 0;
    }
    const impl = await cmd.load();
    const result = await impl.run(parsed, io);
    if (json) io.out(JSON.stringify(result.json));
    else for (const line of result.text) io.out(line);
    return result.exit ?? 0;
  } catch (err) {
    const d = describeError(err);
    io.err(`error: ${d.message}`);
    if (json) io.out(JSON.stringify({ ok: false, command: name, error: d }));
    return d.kind === 'usage' ? 2 : 1;
  }
}
