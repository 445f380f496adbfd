import type { ChangeType, HierarchyTree } from '../../../shared/memory.ts';
import { CHANGE_TYPES } from '../../../shared/memory.ts';
import {
  addSection,
  checkConsistency,
  checkLevelLimits,
  draftSection,
  getExecutiveSummary,
  getSection,
  hierarchyTree,
  navigationIndex,
  propagationHints,
  resolveL4Ref,
  setExecutiveSummary,
  updateSection,
  acquireOwnership,
  releaseOwnership,
  transferOwnership,
  listOwnership,
  ownershipAudit,
  OWNERSHIP_TYPES,
  type OwnershipType,
} from '../../core/hierarchy/index.ts';
import type { Database } from 'better-sqlite3';
import { CliError, intOption, printJson, readInput, type Command, type CommandContext } from '../command.ts';
import { agentOf, str, strs, subcommand, withMemoryStore } from './memory-shared.ts';
import { printable } from '../printable.ts';

const USAGE = [
  'contextpack hierarchy show [§MARKER] [--tree]     (no marker: navigation index and executive summary)',
  'contextpack hierarchy check                        (exit 1 on findings; per-level token limits: L1 ≤ 1K, L2 200–500, L3 1K–3K)',
  'contextpack hierarchy summary --goal G --status PCT [--status-text T] [--priority P]... [--blocker B]... [--decision DEC-…]... [--agent A]',
  'contextpack hierarchy add --level 2|3 --title T [--parent §2.N|§3.N] [--body TEXT | --body-file F|-] [--status PCT]',
  'contextpack hierarchy edit §MARKER [--title T] [--body TEXT | --body-file F|-] [--status PCT]',
  'contextpack hierarchy draft --level 2|3 --title T (--path PREFIX | --query Q) [--size N]   (prints an extractive DRAFT)',
  `contextpack hierarchy hints --change ${CHANGE_TYPES.join('|')} [--path FILE]`,
  'contextpack hierarchy own §MARKER --agent A [--type exclusive|shared-write|read-only] [--reason R] [--expires ISO]',
  'contextpack hierarchy own §MARKER --agent A (--release | --transfer B) [--reason R]',
  'contextpack hierarchy owners [--audit [§MARKER]]      (edits by a non-owner of an exclusive section are refused)',
].join('\n       ');

export const hierarchyCommand: Command = {
  name: 'hierarchy',
  gatesOutput: true,
  summary: 'Four-level project hierarchy (§1.0 summary, §2 sections, §3 details, §4 files): show, check, edit',
  usage: USAGE,
  options: {
    tree: { type: 'boolean', default: false },
    goal: { type: 'string' },
    status: { type: 'string' },
    'status-text': { type: 'string' },
    priority: { type: 'string', multiple: true },
    blocker: { type: 'string', multiple: true },
    decision: { type: 'string', multiple: true },
    level: { type: 'string' },
    title: { type: 'string' },
    parent: { type: 'string' },
    body: { type: 'string' },
    'body-file': { type: 'string' },
    path: { type: 'string' },
    query: { type: 'string' },
    size: { type: 'string' },
    change: { type: 'string' },
    agent: { type: 'string' },
    type: { type: 'string' },
    reason: { type: 'string' },
    expires: { type: 'string' },
    release: { type: 'boolean', default: false },
    transfer: { type: 'string' },
    audit: { type: 'boolean', default: false },
  },
  async run(ctx) {
    const sub = subcommand(ctx, ['show', 'check', 'summary', 'add', 'edit', 'draft', 'hints', 'own', 'owners'], USAGE);
    const rest = ctx.args.slice(1);
    const deps = { actor: agentOf(ctx) };
    const body = async () => {
      const file = str(ctx, 'body-file');
      return file !== undefined ? await readInput(ctx, file) : str(ctx, 'body');
    };
    return withMemoryStore(ctx, async (db) => {
      switch (sub) {
        case 'show': {
          if (rest.length > 0 && /^§?4\./.test(rest[0]!)) return showL4(ctx, db, rest[0]!);
          if (rest.length > 0) {
            const s = getSection(db, rest[0]!);
            if (!s) throw new CliError(`section ${rest[0]} not found`);
            if (ctx.json) printJson(ctx, s);
            else ctx.io.stdout(s.level === 1 ? s.body : `## ${printable(`${s.marker} ${s.title}`)}${s.is_draft ? ' [DRAFT]' : ''}\n\n${s.body}\n`);
            return 0;
          }
          const tree = hierarchyTree(db);
          const index = navigationIndex(tree);
          if (ctx.json) printJson(ctx, { tree, index });
          else ctx.io.stdout(ctx.values.tree === true ? renderTree(tree) : `${index.markdown}\n${tree.l1?.text ?? '(no executive summary yet: contextpack hierarchy summary --goal … --status …)\n'}`);
          return 0;
        }
        case 'check': {
          const findings = checkConsistency(db);
          // The seed's per-level token limits: over a maximum fails the check, under a minimum is a warning.
          const limits = checkLevelLimits(db);
          const over = limits.filter((l) => l.severity === 'over');
          if (ctx.json) printJson(ctx, { findings, limits });
          else {
            const lines = findings.map((f) => `${f.check.padEnd(20)} ${f.marker.padEnd(8)} ${f.message}`);
            for (const l of over) lines.push(`${'level-token-limit'.padEnd(20)} ${l.marker.padEnd(8)} ${l.message}`);
            ctx.io.stdout(lines.length === 0 ? 'hierarchy consistent\n' : lines.join('\n') + '\n');
            const under = limits.filter((l) => l.severity === 'under');
            if (under.length > 0) ctx.io.stderr(under.map((l) => `warning: ${l.message}`).join('\n') + '\n');
          }
          return findings.length === 0 && over.length === 0 ? 0 : 1;
        }
        case 'summary': {
          const current = getExecutiveSummary(db);
          const s = setExecutiveSummary(
            db,
            {
              goal: str(ctx, 'goal') ?? current?.goal ?? '',
              status_pct: intOption(ctx, 'status', undefined, -Infinity) ?? current?.status_pct ?? (undefined as unknown as number),
              status_text: str(ctx, 'status-text') ?? current?.status_text,
              priorities: ctx.values.priority ? strs(ctx, 'priority') : current?.priorities,
              blockers: ctx.values.blocker ? strs(ctx, 'blocker') : current?.blockers,
              key_decisions: ctx.values.decision ? strs(ctx, 'decision') : current?.key_decisions.map((d) => d.decision_id),
            },
            deps,
          );
          if (ctx.json) printJson(ctx, s);
          else ctx.io.stdout(s.text);
          return 0;
        }
        case 'add': {
          const level = intOption(ctx, 'level', undefined, -Infinity);
          const s = addSection(db, { level: level as 2 | 3, title: str(ctx, 'title') ?? '', parent: str(ctx, 'parent'), body: await body(), status_pct: intOption(ctx, 'status', undefined, -Infinity) }, deps);
          if (ctx.json) printJson(ctx, s);
          else ctx.io.stdout(`§${s.marker}  ${s.title}\n`);
          return 0;
        }
        case 'edit': {
          if (rest.length !== 1) throw new CliError(`hierarchy edit: give one marker\nusage: ${USAGE}`);
          const s = updateSection(db, rest[0]!, { title: str(ctx, 'title'), body: await body(), status_pct: intOption(ctx, 'status', undefined, -Infinity) }, deps);
          if (ctx.json) printJson(ctx, s);
          else ctx.io.stdout(`§${s.marker}  ${s.title}  updated\n`);
          return 0;
        }
        case 'draft': {
          const level = intOption(ctx, 'level', undefined, -Infinity);
          if (level !== 2 && level !== 3) throw new CliError('--level must be 2 or 3');
          const d = draftSection(db, { level, title: str(ctx, 'title') ?? 'Draft', pathPrefix: str(ctx, 'path'), query: str(ctx, 'query'), size: intOption(ctx, 'size', undefined, -Infinity) });
          if (ctx.json) printJson(ctx, d);
          else ctx.io.stdout(d.text);
          return 0;
        }
        case 'own': {
          if (rest.length !== 1) throw new CliError(`hierarchy own: give one section marker\nusage: ${USAGE}`);
          const agent = agentOf(ctx);
          if (!agent) throw new CliError('hierarchy own: give --agent A (or set CONTEXTPACK_AGENT)');
          const section = rest[0]!;
          const reason = str(ctx, 'reason');
          if (ctx.values.release === true) {
            releaseOwnership(db, section, agent, { reason });
            if (ctx.json) printJson(ctx, { section, released_by: agent });
            else ctx.io.stdout(`${section} released by ${agent}\n`);
            return 0;
          }
          const to = str(ctx, 'transfer');
          const type = str(ctx, 'type');
          if (type !== undefined && !OWNERSHIP_TYPES.includes(type as OwnershipType)) throw new CliError(`--type must be one of ${OWNERSHIP_TYPES.join(', ')}`);
          const o = to
            ? transferOwnership(db, section, agent, to, { reason, type: type as OwnershipType | undefined })
            : acquireOwnership(db, section, agent, { type: type as OwnershipType | undefined, reason, expiresAt: str(ctx, 'expires') });
          if (ctx.json) printJson(ctx, o);
          else ctx.io.stdout(`§${o.section_id} owned by ${o.owner_agent_id} (${o.ownership_type}${o.previous_owner ? `, from ${o.previous_owner}` : ''})\n`);
          return 0;
        }
        case 'owners': {
          if (ctx.values.audit === true) {
            const entries = ownershipAudit(db, rest[0]);
            if (ctx.json) printJson(ctx, { entries });
            else ctx.io.stdout(entries.length === 0 ? 'no ownership changes yet\n' : entries.map((e) => `${e.ts}  ${e.action.padEnd(8)} §${e.section_id}  ${e.agent_id}${e.owner_agent_id ? ` → ${e.owner_agent_id}` : ''}  ${e.reason}`).join('\n') + '\n');
            return 0;
          }
          const owners = listOwnership(db);
          if (ctx.json) printJson(ctx, { owners });
          else ctx.io.stdout(owners.length === 0 ? 'no owned sections\n' : owners.map((o) => `§${o.section_id}  ${o.owner_agent_id}  ${o.ownership_type}  since ${o.acquired_at}${o.lock_reason ? `  (${o.lock_reason})` : ''}`).join('\n') + '\n');
          return 0;
        }
        case 'hints': {
          const change = str(ctx, 'change');
          if (!CHANGE_TYPES.includes(change as ChangeType)) throw new CliError(`--change must be one of ${CHANGE_TYPES.join(', ')}`);
          const hints = propagationHints(db, { type: change as ChangeType, path: str(ctx, 'path') });
          if (ctx.json) printJson(ctx, { change, hints });
          else ctx.io.stdout(hints.map((h) => `L${h.level}  ${h.update.padEnd(11)} ${h.rule}${h.markers.length > 0 ? `  → ${h.markers.join(', ')}` : ''}`).join('\n') + '\n');
          return 0;
        }
      }
      return 2;
    });
  },
};

/**
 * A §4 marker: the file it names (exact relative path, dotted form or `*` folder form, as references resolve), with
 * its indexed chunks. Every marker `--tree` lists resolves here.
 */
function showL4(ctx: CommandContext, db: Database, marker: string): number {
  const ref = marker.replace(/^§?4\./, '');
  const nodes = resolveL4Ref(ref, hierarchyTree(db).l4);
  if (nodes.length === 0) throw new CliError(`section ${marker} not found (no indexed file matches ${JSON.stringify(ref)}; see hierarchy show --tree)`);
  const chunksOf = db.prepare(
    `SELECT c.anchor, c.line_start AS lineStart, c.line_end AS lineEnd, c.text FROM sources s JOIN documents d ON d.source_id = s.id
     JOIN chunks c ON c.document_id = d.id WHERE s.path = ? ORDER BY d.ordinal, c.ordinal`,
  );
  if (nodes.length > 1 || ref.endsWith('*')) {
    if (ctx.json) printJson(ctx, { files: nodes });
    else ctx.io.stdout(nodes.map((n) => printable(`§${n.marker}  (${n.chunks} chunks, ${n.tokens} tokens)`)).join('\n') + '\n');
    return 0;
  }
  const n = nodes[0]!;
  const chunks = chunksOf.all(n.path) as { anchor: string; lineStart: number; lineEnd: number; text: string }[];
  if (ctx.json) printJson(ctx, { ...n, chunk_list: chunks });
  else {
    const head = `## §${printable(n.marker)}\n\n${printable(n.path)} · ${n.type} · ${n.size} bytes · ${n.chunks} chunks · ${n.tokens} tokens\n`;
    ctx.io.stdout(head + chunks.map((c) => `\n### lines ${c.lineStart}–${c.lineEnd}${c.anchor ? ` #${printable(c.anchor)}` : ''}\n\n${c.text}\n`).join(''));
  }
  return 0;
}

function renderTree(tree: HierarchyTree): string {
  const lines: string[] = [];
  lines.push(tree.l1 ? `§1.0 Project Overview — ${tree.l1.status_pct}% — ${tree.l1.goal}` : '§1.0 (not written yet)');
  for (const s of tree.sections) {
    lines.push(`├─ §${s.marker} ${s.title}${s.status_pct !== null ? ` (${s.status_pct}%)` : ''}${s.is_draft ? ' [DRAFT]' : ''}`);
    for (const c of s.children) lines.push(`│  ├─ §${c.marker} ${c.title}${c.is_draft ? ' [DRAFT]' : ''}`);
  }
  for (const o of tree.orphan_details) lines.push(`├─ §${o.marker} ${o.title} (no §2 section)`);
  lines.push(`└─ §4: ${tree.l4.length} files`);
  for (const n of tree.l4) lines.push(`   ├─ §${n.marker}  (${n.chunks} chunks, ${n.tokens} tokens)`);
  // One record per line: a title or file name holding a newline or an escape sequence is shown escaped.
  return lines.map(printable).join('\n') + '\n';
}
