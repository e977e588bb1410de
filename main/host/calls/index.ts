// The handler table behind the contract: every call by name, grouped by domain in the files beside this one.
// Each domain is a function of the Workspace (main/host/workspace.ts) returning its handlers; service.ts
// validates a call, checks its paths and dispatches here.

import type { CallName, CallOutputs, ParsedInput } from '../../../contract/index.ts';
import type { Workspace } from '../workspace.ts';
import { appCalls } from './app.ts';
import { experimentCalls } from './experiments.ts';
import { importCalls } from './imports.ts';
import { modelCalls } from './models.ts';
import { repoCalls } from './repos.ts';
import { reportCalls } from './reports.ts';
import { sampleCalls } from './samples.ts';
import { settingsCalls } from './settings.ts';
import { taskCalls } from './tasks.ts';

/** The handlers of some calls, each taking its parsed input. */
export type CallTable<K extends CallName> = { [P in K]: (input: ParsedInput<P>) => Promise<CallOutputs[P]> | CallOutputs[P] };

export type Handlers = CallTable<CallName>;

export function makeHandlers(ws: Workspace): Handlers {
  return {
    ...appCalls(ws),
    ...settingsCalls(ws),
    ...modelCalls(ws),
    ...repoCalls(ws),
    ...taskCalls(ws),
    ...experimentCalls(ws),
    ...reportCalls(ws),
    ...sampleCalls(),
    ...importCalls(ws),
  };
}
