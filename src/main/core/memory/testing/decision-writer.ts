// Child process for the concurrency test: creates argv[3] decisions dated argv[4] in store argv[2], one id a line.
import { openStore } from '../../store/index.ts';
import { createDecision } from '../decisions.ts';
import { MEMORY_MIGRATIONS } from './store.ts';

const [dbPath, count, timestamp, label] = process.argv.slice(2) as [string, string, string, string];
const store = openStore(dbPath, { migrations: MEMORY_MIGRATIONS, loadVec: false });
for (let i = 0; i < Number(count); i++) {
  const d = createDecision(store.db, { title: `${label} decision ${i}`, decision: 'd', rationale: 'r', importance: 5, timestamp, agent_id: label });
  process.stdout.write(`${d.decision_id}\n`);
}
store.close();
