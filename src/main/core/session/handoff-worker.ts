// Worker-thread entry: builds one handoff (parse, extraction, compaction, gate, package) off the caller's event loop,
// so a server (MCP, serve) keeps answering while a large transcript is handed off (handoff-offload.ts). It reads the
// store through a read-only connection of its own; the caller stores the result on its own connection.
import { parentPort, workerData } from 'node:worker_threads';
import { messageOf } from '../../../shared/message-of.ts';
import type { RedactionEvent } from '../redact/index.ts';
import { openStore } from '../store/index.ts';
import { parseTranscript } from '../transcripts/index.ts';
import { buildHandoff } from './handoff.ts';
import type { OffloadRequest, OffloadResult } from './handoff-offload.ts';

const port = parentPort;
if (!port) throw new Error('handoff-worker.ts must run in a worker thread');

const job = workerData as OffloadRequest;
const events: RedactionEvent[] = [];
let result: OffloadResult;
try {
  const store = job.dbPath ? openStore(job.dbPath, { readonly: true, loadVec: false }) : null;
  try {
    const transcript = job.transcript ? parseTranscript(job.transcript.text, job.transcript.name) : null;
    const built = buildHandoff({ ...job.request, transcript }, { db: store?.db ?? null, now: () => new Date(job.now), redactionLog: (e) => events.push(e) });
    result = {
      ok: true,
      built: { package: built.package, hash: built.hash, bytes: built.bytes, markdown: built.markdown, extraction: built.extraction },
      transcript: transcript ? { name: transcript.source, format: transcript.format, turns: transcript.turns.length, problems: transcript.problems } : null,
      events,
    };
  } finally {
    store?.close();
  }
} catch (err) {
  result = { ok: false, name: (err as Error).name ?? 'Error', message: messageOf(err) };
}
port.postMessage(result);
