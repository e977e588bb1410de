// Child process for the crash-resume test: indexes a repository and SIGKILLs itself mid-way.
import { runIndex } from '../../main/index/indexer.ts';
import { Store } from '../../main/store/store.ts';
import { fakeEncoder } from './fake-encoder.ts';

const [root, dbPath, after] = process.argv.slice(2);
const store = Store.open(dbPath!);
let n = 0;
await runIndex({
  store,
  root: root!,
  encoder: fakeEncoder('fake@1'),
  parseThreads: 2,
  writeBatch: 4,
  onFileWritten: () => {
    if (++n === Number(after)) process.kill(process.pid, 'SIGKILL');
  },
});
console.error('finished without being killed');
