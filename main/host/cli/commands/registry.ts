// Every command of the CLI. Each group of commands lives in its own file beside this one.

import type { Command } from '../kit.ts';
import { INDEX_COMMANDS } from './index-commands.ts';
import { IMPORT_COMMANDS } from './import-commands.ts';
import { RETRIEVE_COMMANDS } from './retrieve-commands.ts';
import { GENERATE_COMMANDS } from './generate-commands.ts';
import { VALIDATE_COMMANDS } from './validate-commands.ts';
import { EXPERIMENT_COMMANDS } from './experiment-commands.ts';
import { APP_COMMANDS } from './app-commands.ts';
import { SAMPLES_COMMANDS } from './samples-commands.ts';
import { MODELS_COMMANDS } from './models-commands.ts';

export const COMMANDS: Record<string, Command> = {
  ...INDEX_COMMANDS,
  ...IMPORT_COMMANDS,
  ...RETRIEVE_COMMANDS,
  ...GENERATE_COMMANDS,
  ...MODELS_COMMANDS,
  ...VALIDATE_COMMANDS,
  ...EXPERIMENT_COMMANDS,
  ...SAMPLES_COMMANDS,
  ...APP_COMMANDS,
};
