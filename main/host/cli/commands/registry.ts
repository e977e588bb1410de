// Every command of the CLI: what help and the argument parser need of each (specs.ts), and how to load the file
// beside this one that implements it. A command's file, and whatever it imports (encoders, parsers, the LLM SDKs),
// is loaded only when that command runs, so `opencoder --help` and `opencoder <command> --help` load none of them.

import type { Command, CommandSpec } from '../kit.ts';
import {
  APP_SPECS,
  EXPERIMENT_SPECS,
  GENERATE_SPECS,
  IMPORT_SPECS,
  INDEX_SPECS,
  MINE_SPECS,
  MODELS_SPECS,
  RETRIEVE_SPECS,
  SAMPLES_SPECS,
  STATUS_SPECS,
  VALIDATE_SPECS,
} from '../specs.ts';

/** A command as the registry holds it: its spec, and `load` for its implementation. */
export interface CommandEntry extends CommandSpec {
  load(): Promise<Command>;
}

/** One command file: the specs of the commands it implements, in help order, and the import that loads it. */
export interface CommandGroup {
  file: string;
  specs: Record<string, CommandSpec>;
  load(): Promise<Record<string, Command>>;
}

export const GROUPS: CommandGroup[] = [
  { file: 'index-commands.ts', specs: INDEX_SPECS, load: async () => (await import('./index-commands.ts')).INDEX_COMMANDS },
  { file: 'mine-commands.ts', specs: MINE_SPECS, load: async () => (await import('./mine-commands.ts')).MINE_COMMANDS },
  { file: 'status-command.ts', specs: STATUS_SPECS, load: async () => (await import('./status-command.ts')).STATUS_COMMANDS },
  { file: 'import-commands.ts', specs: IMPORT_SPECS, load: async () => (await import('./import-commands.ts')).IMPORT_COMMANDS },
  { file: 'retrieve-commands.ts', specs: RETRIEVE_SPECS, load: async () => (await import('./retrieve-commands.ts')).RETRIEVE_COMMANDS },
  { file: 'generate-commands.ts', specs: GENERATE_SPECS, load: async () => (await import('./generate-commands.ts')).GENERATE_COMMANDS },
  { file: 'models-commands.ts', specs: MODELS_SPECS, load: async () => (await import('./models-commands.ts')).MODELS_COMMANDS },
  { file: 'validate-commands.ts', specs: VALIDATE_SPECS, load: async () => (await import('./validate-commands.ts')).VALIDATE_COMMANDS },
  { file: 'experiment-commands.ts', specs: EXPERIMENT_SPECS, load: async () => (await import('./experiment-commands.ts')).EXPERIMENT_COMMANDS },
  { file: 'samples-commands.ts', specs: SAMPLES_SPECS, load: async () => (await import('./samples-commands.ts')).SAMPLES_COMMANDS },
  { file: 'app-commands.ts', specs: APP_SPECS, load: async () => (await import('./app-commands.ts')).APP_COMMANDS },
];

function entryOf(group: CommandGroup, name: string, spec: CommandSpec): CommandEntry {
  return {
    ...spec,
    async load() {
      const cmd = (await group.load())[name];
      if (!cmd) throw new Error(`internal: ${group.file} does not implement the command "${name}" that specs.ts lists for it`);
      return cmd;
    },
  };
}

export const COMMANDS: Record<string, CommandEntry> = Object.fromEntries(
  GROUPS.flatMap((g) => Object.entries(g.specs).map(([name, spec]) => [name, entryOf(g, name, spec)] as const)),
);
