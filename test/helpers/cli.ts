// Runs the `opencoder` command line in this process (main() with captured output), as the CLI tests do.

import { main } from '../../main/host/cli/main.ts';

export interface CliRun {
  code: number;
  out: string[];
  err: string[];
  /** stdout and stderr lines together. */
  text: string;
  /** The last stdout line parsed (the --json document), or null when there is none. */
  json(): any;
}

export async function cli(args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, text: [...out, ...err].join('\n'), json: () => JSON.parse(out.at(-1) ?? 'null') };
}
