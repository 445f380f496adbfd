// Child process for the crash test: ingests argv[3] into argv[2], printing a line per finished file.
import { openStore } from '../../store/index.ts';
import { ingestPaths } from '../ingest.ts';

const [dbPath, root] = process.argv.slice(2) as [string, string];
const store = openStore(dbPath);
await ingestPaths(store.db, [root], {
  onProgress: (p) => {
    if (p.phase === 'index') process.stdout.write(`${p.filesDone}\n`);
  },
});
store.close();
process.stdout.write('finished\n');
