// How browser mode reads in a terminal when `serve` (or `start` without Electron) is up: where to open it, the
// token the API wants, the database and the folders the app may read.

/** The lines `serve` prints once the server listens. */
export function servingLines(server: { openUrl: string; token: string }, dbPath: string, allowedRoots: readonly string[]): string[] {
  return [
    `OpenCoder is running in browser mode. Open this address in your browser:`,
    `  ${server.openUrl}`,
    `Token (the API wants "Authorization: Bearer <token>"): ${server.token}`,
    `Database: ${dbPath}`,
    `Allowed folders: ${allowedRoots.join(', ')}`,
    'Press Ctrl-C to stop.',
  ];
}
