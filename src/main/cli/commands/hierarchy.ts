import type { ChangeType, HierarchyTree } from '../../../shared/memory.ts';
import { CHANGE_TYPES } from '../../../shared/memory.ts';
import type { ApiOutput } from '../../../shared/api/index.ts';
import { CliError, printJson, readInput, type Command, type CommandContext } from '../command.ts';
import { agentOf, str, strs, subcommand, num } from './memory-shared.ts';
import { printable } from '../printable.ts';
import { withApiIssues } from '../api-client.ts';

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
    const agent = agentOf(ctx);
    const body = async () => {
      const file = str(ctx, 'body-file');
      return file !== undefined ? await readInput(ctx, file) : str(ctx, 'body');
    };
    return withApiIssues(ctx, `hierarchy ${sub}`, async (call) => {
      switch (sub) {
        case 'show': {
          if (rest.length > 0) {
            const shown = await call('hierarchy.show', { marker: rest[0]! });
            if (shown.files) return showL4(ctx, shown);
            const s = shown.section!;
            if (ctx.json) printJson(ctx, s);
            else ctx.io.stdout(s.level === 1 ? s.body : `## ${printable(`${s.marker} ${s.title}`)}${s.is_draft ? ' [DRAFT]' : ''}\n\n${s.body}\n`);
            return 0;
          }
          // One build of the tree gives the index and the tree (hierarchy.tree would also run the consistency checks).
          const shown = await call('hierarchy.show', {});
          const tree = shown.tree!;
          const index = shown.index!;
          if (ctx.json) printJson(ctx, { tree, index });
          else ctx.io.stdout(ctx.values.tree === true ? renderTree(tree) : `${index.markdown}\n${tree.l1?.text ?? '(no executive summary yet: contextpack hierarchy summary --goal … --status …)\n'}`);
          return 0;
        }
        case 'check': {
          // The seed's per-level token limits: over a maximum fails the check, under a minimum is a warning.
          const { findings, limits } = await call('hierarchy.tree', {});
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
          // A flag not given keeps what the summary says now.
          const current = (await call('hierarchy.tree', {})).tree.l1;
          const s = await call('hierarchy.summary', {
            goal: str(ctx, 'goal') ?? current?.goal ?? '',
            status_pct: (num(ctx, 'status') ?? current?.status_pct) as number,
            status_text: str(ctx, 'status-text') ?? current?.status_text,
            priorities: ctx.values.priority ? strs(ctx, 'priority') : current?.priorities,
            blockers: ctx.values.blocker ? strs(ctx, 'blocker') : current?.blockers,
            key_decisions: ctx.values.decision ? strs(ctx, 'decision') : current?.key_decisions.map((d) => d.decision_id),
            agent: agent ?? 'user',
          });
          if (ctx.json) printJson(ctx, s);
          else ctx.io.stdout(s.text);
          return 0;
        }
        case 'add': {
          const s = await call('hierarchy.addSection', { level: num(ctx, 'level') as 2 | 3, title: str(ctx, 'title') ?? '', parent: str(ctx, 'parent'), body: await body(), status_pct: num(ctx, 'status') as number | undefined, agent });
          if (ctx.json) printJson(ctx, s);
          else ctx.io.stdout(`§${s.marker}  ${s.title}\n`);
          return 0;
        }
        case 'edit': {
          if (rest.length !== 1) throw new CliError(`hierarchy edit: give one marker\nusage: ${USAGE}`);
          const s = await call('hierarchy.editSection', { marker: rest[0]!, title: str(ctx, 'title'), body: await body(), status_pct: num(ctx, 'status') as number | undefined, agent });
          if (ctx.json) printJson(ctx, s);
          else ctx.io.stdout(`§${s.marker}  ${s.title}  updated\n`);
          return 0;
        }
        case 'draft': {
          const d = await call('hierarchy.draft', { level: num(ctx, 'level') as 2 | 3, title: str(ctx, 'title'), path: str(ctx, 'path'), query: str(ctx, 'query'), size: num(ctx, 'size') as number | undefined });
          if (ctx.json) printJson(ctx, d);
          else ctx.io.stdout(d.text);
          return 0;
        }
        case 'own': {
          if (rest.length !== 1) throw new CliError(`hierarchy own: give one section marker\nusage: ${USAGE}`);
          if (!agent) throw new CliError('hierarchy own: give --agent A (or set CONTEXTPACK_AGENT)');
          const section = rest[0]!;
          const to = str(ctx, 'transfer');
          const action = ctx.values.release === true ? 'release' : to !== undefined ? 'transfer' : 'acquire';
          const type = str(ctx, 'type') as 'exclusive' | undefined;
          const { ownership: o } = await call('hierarchy.own', { section, agent, action, to, type, reason: str(ctx, 'reason'), expires: action === 'acquire' ? str(ctx, 'expires') : undefined });
          if (!o) {
            if (ctx.json) printJson(ctx, { section, released_by: agent });
            else ctx.io.stdout(`${section} released by ${agent}\n`);
            return 0;
          }
          if (ctx.json) printJson(ctx, o);
          else ctx.io.stdout(`§${o.section_id} owned by ${o.owner_agent_id} (${o.ownership_type}${o.previous_owner ? `, from ${o.previous_owner}` : ''})\n`);
          return 0;
        }
        case 'owners': {
          const { owners, audit: entries } = await call('hierarchy.owners', ctx.values.audit === true && rest[0] !== undefined ? { section: rest[0] } : {});
          if (ctx.values.audit === true) {
            if (ctx.json) printJson(ctx, { entries });
            else ctx.io.stdout(entries.length === 0 ? 'no ownership changes yet\n' : entries.map((e) => `${e.ts}  ${e.action.padEnd(8)} §${e.section_id}  ${e.agent_id}${e.owner_agent_id ? ` → ${e.owner_agent_id}` : ''}  ${e.reason}`).join('\n') + '\n');
            return 0;
          }
          if (ctx.json) printJson(ctx, { owners });
          else ctx.io.stdout(owners.length === 0 ? 'no owned sections\n' : owners.map((o) => `§${o.section_id}  ${o.owner_agent_id}  ${o.ownership_type}  since ${o.acquired_at}${o.lock_reason ? `  (${o.lock_reason})` : ''}`).join('\n') + '\n');
          return 0;
        }
        case 'hints': {
          const { change, hints } = await call('hierarchy.hints', { change: str(ctx, 'change') as ChangeType, path: str(ctx, 'path') });
          if (ctx.json) printJson(ctx, { change, hints });
          else ctx.io.stdout(hints.map((h) => `L${h.level}  ${h.update.padEnd(11)} ${h.rule}${h.markers.length > 0 ? `  → ${h.markers.join(', ')}` : ''}`).join('\n') + '\n');
          return 0;
        }
      }
      return 2;
    }, FLAGS);
  },
};

/** The flags whose API field is named otherwise. */
const FLAGS: Record<string, string> = { status_pct: '--status', status_text: '--status-text', priorities: '--priority', blockers: '--blocker', key_decisions: '--decision', to: '--transfer' };

/**
 * A §4 marker: the file it names (exact relative path, dotted form or `*` folder form, as references resolve), with
 * its indexed chunks. Every marker `--tree` lists resolves here.
 */
function showL4(ctx: CommandContext, shown: ApiOutput<'hierarchy.show'>): number {
  const nodes = shown.files!;
  if (!shown.chunks) {
    if (ctx.json) printJson(ctx, { files: nodes });
    else ctx.io.stdout(nodes.map((n) => printable(`§${n.marker}  (${n.chunks} chunks, ${n.tokens} tokens)`)).join('\n') + '\n');
    return 0;
  }
  const n = nodes[0]!;
  const chunks = shown.chunks;
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
