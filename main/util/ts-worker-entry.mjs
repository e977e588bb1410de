// Entry of worker threads whose code is TypeScript (a checkout run through tsx): registers tsx in
// this thread, then loads the real entry named in `workerData.__tsEntry`.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.__tsEntry);
