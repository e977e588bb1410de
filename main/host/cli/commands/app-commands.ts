// The desktop app from the command line: serve (browser mode: the engine behind a local HTTP + WebSocket server
// with the UI as static files) and start (the Electron app when it can run here, else browser mode).

import fs from 'node:fs';
import path from 'node:path';
import { buildRenderer, electronLaunch, runElectron, untilSignal } from '../app-launch.ts';
import { allowOf, dbPathOf, type Command, type CommandResult, type Io } from '../kit.ts';
import { defaultRendererDir, startServer } from '../../server.ts';
import { createEngineService } from '../../service.ts';
import { num } from '../flags.ts';
import { APP_SPECS } from '../specs.ts';
import { servingLines } from '../text/app-text.ts';

/** `opencoder serve`: runs until SIGINT / SIGTERM, then closes the server and the engine cleanly. */
export async function serve(values: Record<string, unknown>, io: Io, why?: string): Promise<CommandResult> {
  const json = values.json === true;
  const port = num(values, 'port', { int: true, min: 0 }) ?? 0;
  const rendererDir = values.renderer ? path.resolve(values.renderer as string) : defaultRendererDir();
  if (!values.renderer && !fs.existsSync(path.join(rendererDir, 'index.html'))) await buildRenderer(io);
  const dbPath = dbPathOf(values);
  const service = await createEngineService({
    dbPath,
    mode: 'browser',
    allowedRoots: allowOf(values),
    demo: values['no-demo'] !== true,
  });
  let server;
  try {
    server = await startServer({ service, port, rendererDir });
  } catch (err) {
    await service.close();
    throw err;
  }
  const stopped = untilSignal();
  if (json) {
    io.out(
      JSON.stringify({
        ok: true,
        command: 'serve',
        url: server.url,
        openUrl: server.openUrl,
        token: server.token,
        port: server.port,
        db: dbPath,
        ...(why ? { electron: why } : {}),
      }),
    );
  } else for (const line of servingLines(server, dbPath, service.allowedRoots)) io.out(line);
  const sig = await stopped;
  io.err(`${sig}: stopping (finished work is kept; runs resume later)…`);
  await server.close();
  await service.close();
  return { text: ['OpenCoder stopped.'], json: { ok: true, command: 'serve', closed: true, signal: sig } };
}

export const APP_COMMANDS: Record<string, Command> = {
  serve: {
    ...APP_SPECS.serve,
    run: ({ values }, io) => serve(values, io),
  },
  start: {
    ...APP_SPECS.start,
    async run({ values }, io) {
      const launch = electronLaunch();
      let reason: string;
      if ('bin' in launch) {
        const r = await runElectron(launch, values);
        if ('code' in r) return { text: [], json: { ok: r.code === 0, command: 'start', electron: true, exit: r.code }, exit: r.code };
        reason = r.reason;
      } else reason = launch.reason;
      io.err(`Electron cannot start: ${reason}. Starting browser mode instead.`);
      return serve(values, io, reason);
    },
  },
};
