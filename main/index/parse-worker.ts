// Worker thread: parses files with tree-sitter and derives API entries, so the main thread stays free.

import { parentPort } from 'node:worker_threads';
import { handleParse } from './parse-job.ts';
import type { ParseRequest } from './parse-pool.ts';

const port = parentPort;
if (!port) throw new Error('parse-worker must run in a worker thread');

port.on('message', (req: ParseRequest) => void handleParse(req).then((reply) => port.postMessage(reply)));
