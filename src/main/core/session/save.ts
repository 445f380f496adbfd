// Saving what a transcript or session notes yielded as memories, deduplicated against the store: an item whose
// normalized title or text is already there (active or archived) is reported as a duplicate, not saved again.
import type { Database } from 'better-sqlite3';
import type { SaveReport, SavedMemory } from '../../../shared/session.ts';
import { addMemory, createDecision, TITLE_MAX, type MemoryDeps } from '../memory/index.ts';
import { openErrorsOf, openIssuesOf, type Extraction } from './extract.ts';

const norm = (s: string) => s.toLowerCase().normalize('NFKC').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const title = (s: string) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > TITLE_MAX ? `${t.slice(0, TITLE_MAX - 1)}…` : t;
};

type Kind = SavedMemory['memory_type'];

function known(db: Database, type: Kind): { titles: Map<string, SavedMemory>; bodies: Map<string, SavedMemory> } {
  const rows = db.prepare('SELECT id, decision_id, title, body FROM memories WHERE type = ?').all(type) as { id: string; decision_id: string | null; title: string; body: string }[];
  const titles = new Map<string, SavedMemory>();
  const bodies = new Map<string, SavedMemory>();
  for (const r of rows) {
    const m: SavedMemory = { memory_type: type, id: r.decision_id ?? r.id, title: r.title };
    titles.set(norm(r.title), m);
    for (const line of r.body.split('\n')) if (line.trim().length > 20) bodies.set(norm(line), m);
  }
  return { titles, bodies };
}

export interface SaveOptions extends MemoryDeps {
  agent?: string;
  /** Tags added to every saved memory (e.g. `from-transcript`, `handoff`). */
  tags?: string[];
  /** Also save the current task state (session end does; a handoff records its own state memory instead). */
  includeState?: boolean;
}

/** Decisions, open issues (bugs, TODOs, errors no later run fixed), learnings and optionally the task state, in one transaction. */
export function saveExtraction(db: Database, x: Extraction, opts: SaveOptions = {}): SaveReport {
  const report: SaveReport = { created: [], duplicates: [] };
  const agent = opts.agent ?? 'user';
  const tags = opts.tags ?? ['from-transcript'];
  const deps: MemoryDeps = { now: opts.now, newId: opts.newId, actor: opts.actor ?? agent };
  db.transaction(() => {
    const dec = known(db, 'decision');
    for (const d of x.decisions) {
      const t = title(d.title || d.decision);
      const dup = dec.titles.get(norm(t)) ?? dec.bodies.get(norm(d.decision));
      if (dup) {
        report.duplicates.push(dup);
        continue;
      }
      const r = createDecision(
        db,
        {
          title: t,
          decision: d.decision || d.title,
          rationale: d.rationale || '(no rationale given in the transcript)',
          alternatives_considered: d.alternatives.filter((a) => a.name.trim() !== '' && !/[\r\n]|\*\*/.test(a.name)),
          expected_impact: d.impact,
          validation_criteria: d.validation,
          context: `Found in the transcript at turn ${d.at.turn}, line ${d.at.line}.`,
          importance: d.importance,
          tags,
          agent_id: d.agent || agent,
          timestamp: d.at.ts ?? undefined,
        },
        deps,
      );
      const saved: SavedMemory = { memory_type: 'decision', id: r.decision_id!, title: r.title };
      dec.titles.set(norm(t), saved);
      report.created.push(saved);
    }
    const iss = known(db, 'issue');
    // Open issues and unresolved errors are both issue memories, deduplicated by title against each other too.
    const saveIssue = (t: string, content: Record<string, unknown>, importance: number, kind: string) => {
      const dup = iss.titles.get(norm(t));
      if (dup) {
        report.duplicates.push(dup);
        return;
      }
      const r = addMemory(db, { memory_type: 'issue', title: t, content, importance, tags: [...tags, kind], agent_id: agent }, deps);
      const saved: SavedMemory = { memory_type: 'issue', id: r.memory_id, title: r.title };
      iss.titles.set(norm(t), saved);
      report.created.push(saved);
    };
    for (const i of openIssuesOf(x)) {
      saveIssue(
        title(i.key ? `${i.key}: ${i.title}` : i.kind === 'todo' ? `TODO: ${i.title}` : i.title),
        { description: i.text, severity: i.severity, investigation_status: `Found in the transcript at turn ${i.at.turn}, line ${i.at.line}.`, status: 'open' },
        i.severity === 'critical' ? 9 : i.severity === 'high' ? 7 : 5,
        i.kind,
      );
    }
    // An error no later run fixed is an open issue for whoever comes next.
    for (const e of openErrorsOf(x)) {
      saveIssue(
        title(`Error: ${e.command ? `${e.command}: ` : ''}${e.message}`),
        {
          description: `${e.tool ?? 'A tool'} failed${e.command ? ` running ${e.command}` : ''}: ${e.message}${e.occurrences > 1 ? ` (${e.occurrences} times)` : ''}. No later run succeeded.`,
          severity: 'high',
          investigation_status: `${e.root_cause ? `Root cause: ${e.root_cause}. ` : 'Root cause not identified. '}Last seen in the transcript at turn ${e.at.turn}, line ${e.at.line}.`,
          status: 'open',
        },
        7,
        'error',
      );
    }
    const learn = known(db, 'learning');
    for (const l of x.learnings) {
      const t = title(l.text);
      const dup = learn.titles.get(norm(t)) ?? learn.bodies.get(norm(l.text));
      if (dup) {
        report.duplicates.push(dup);
        continue;
      }
      const r = addMemory(db, { memory_type: 'learning', title: t, content: { lesson: l.text, context: `Transcript turn ${l.at.turn}, line ${l.at.line}.` }, importance: 6, tags, agent_id: agent }, deps);
      const saved: SavedMemory = { memory_type: 'learning', id: r.memory_id, title: r.title };
      learn.titles.set(norm(t), saved);
      report.created.push(saved);
    }
    // Only a state the text states (TASK: / Progress: / checklists / Next actions:), never one inferred from the first request.
    if (opts.includeState && x.state.text) {
      const s = x.state;
      const latest = db.prepare("SELECT id, title, body FROM memories WHERE type = 'state' ORDER BY timestamp DESC, seq DESC LIMIT 1").get() as { id: string; title: string; body: string } | undefined;
      const body = [s.task, String(s.completion_percentage ?? 0), ...s.completed, ...s.in_progress, ...s.not_started, ...s.blockers, ...s.next_actions].join('\n');
      if (latest && latest.body === body) report.duplicates.push({ memory_type: 'state', id: latest.id, title: latest.title });
      else {
        const r = addMemory(
          db,
          {
            memory_type: 'state',
            title: title(s.task),
            content: {
              task_description: s.task,
              // A percentage only when the transcript states one: an unstated one is stored as none, never "0 %" (issue #33).
          completion_percentage: s.completion_percentage,
              substeps_completed: s.completed,
              substeps_remaining: [...s.in_progress, ...s.not_started],
              blockers: s.blockers,
              next_actions: s.next_actions,
            },
            importance: 6,
            tags,
            agent_id: agent,
          },
          deps,
        );
        report.created.push({ memory_type: 'state', id: r.memory_id, title: r.title });
      }
    }
  }).immediate();
  return report;
}
