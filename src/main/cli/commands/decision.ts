import type { DecisionAlternative, DecisionInput, DecisionRecord } from '../../../shared/memory.ts';
import {
  createDecision,
  decisionChain,
  exportDecisions,
  getDecision,
  importDecisions,
  parseDecisionMarkdown,
  renderDecisionMarkdown,
  supersedeDecision,
} from '../../core/memory/index.ts';
import { CliError, intOption, printJson, readInput, type Command } from '../command.ts';
import { agentOf, csv, str, strs, subcommand, withMemoryStore } from './memory-shared.ts';
import { withApi } from '../api-client.ts';

const USAGE = [
  'contextpack decision new --title T --decision TEXT --rationale TEXT --importance 1-10 [--alt "Name: why rejected"]...',
  '                         [--impact T] [--validation T] [--context T] [--tags a,b] [--supersedes DEC-…] [--agent A] [--project P] [--timestamp ISO]',
  'contextpack decision new --from FILE.md|-        (a file in the decision template layout)',
  'contextpack decision list [--query Q] [--tags a,b] [--importance-gte N] [--archived|--all] [--limit N]',
  'contextpack decision show <DEC-id> [--chain]',
  'contextpack decision export [--out DIR] [--include-secrets] [DEC-id...]   (default DIR: docs/decisions; secrets are masked unless --include-secrets)',
  'contextpack decision import <dir|file>...',
  'contextpack decision supersede <old DEC-id> --by <new DEC-id>',
].join('\n       ');

export const decisionCommand: Command = {
  name: 'decision',
  gatesOutput: true,
  summary: 'Record, list, show, supersede, export and import decisions (DEC-YYYY-MM-DD-NNN)',
  usage: USAGE,
  options: {
    title: { type: 'string' },
    decision: { type: 'string' },
    rationale: { type: 'string' },
    alt: { type: 'string', multiple: true },
    impact: { type: 'string' },
    validation: { type: 'string' },
    context: { type: 'string' },
    tags: { type: 'string', multiple: true },
    importance: { type: 'string' },
    supersedes: { type: 'string' },
    agent: { type: 'string' },
    project: { type: 'string' },
    timestamp: { type: 'string' },
    from: { type: 'string' },
    query: { type: 'string' },
    'importance-gte': { type: 'string' },
    archived: { type: 'boolean', default: false },
    all: { type: 'boolean', default: false },
    limit: { type: 'string' },
    chain: { type: 'boolean', default: false },
    out: { type: 'string' },
    'include-secrets': { type: 'boolean', default: false },
    by: { type: 'string' },
  },
  async run(ctx) {
    const sub = subcommand(ctx, ['new', 'list', 'show', 'export', 'import', 'supersede'], USAGE);
    const rest = ctx.args.slice(1);
    // One door (#24): list is a client of decisions.list. new, show, export, import and supersede still call the
    // engine: the contract's decision form words its checks differently, and show --chain, export to files, import
    // and linking two existing decisions have no method yet.
    if (sub === 'list') {
      const input = {
        query: str(ctx, 'query'),
        tags: csv(ctx, 'tags'),
        importanceGte: intOption(ctx, 'importance-gte', undefined, -Infinity),
        archived: ctx.values.all === true ? ('any' as const) : ctx.values.archived === true,
        project: str(ctx, 'project'),
        // The engine's order: relevance with a query, else most important first.
        sort: str(ctx, 'query') ? ('relevance' as const) : ('importance' as const),
        limit: intOption(ctx, 'limit', 1000, -Infinity),
      };
      return withApi(ctx, 'decision list', async (call) => {
        const { decisions } = await call('decisions.list', input);
        if (ctx.json) printJson(ctx, { decisions });
        else ctx.io.stdout(decisions.length === 0 ? 'no decisions\n' : decisions.map(formatRow).join('\n') + '\n');
        return 0;
      });
    }
    return withMemoryStore(ctx, async (db) => {
      switch (sub) {
        case 'new': {
          const from = str(ctx, 'from');
          let input: DecisionInput;
          if (from !== undefined) {
            input = parseDecisionMarkdown(await readInput(ctx, from), from === '-' ? '<stdin>' : from).input;
          } else {
            input = {
              title: str(ctx, 'title') ?? '',
              decision: str(ctx, 'decision') ?? '',
              rationale: str(ctx, 'rationale') ?? '',
              alternatives_considered: strs(ctx, 'alt').map(parseAlt),
              expected_impact: str(ctx, 'impact'),
              validation_criteria: str(ctx, 'validation'),
              context: str(ctx, 'context'),
              tags: csv(ctx, 'tags'),
              importance: intOption(ctx, 'importance', undefined, -Infinity) as number,
              timestamp: str(ctx, 'timestamp'),
            };
          }
          input.agent_id = agentOf(ctx) ?? input.agent_id;
          input.project_id = str(ctx, 'project') ?? input.project_id;
          input.supersedes = str(ctx, 'supersedes') ?? input.supersedes;
          const d = createDecision(db, input, { actor: input.agent_id });
          if (ctx.json) printJson(ctx, d);
          else ctx.io.stdout(`${d.decision_id}  ${d.title}${d.supersedes ? `  (supersedes ${d.supersedes}, now archived)` : ''}\n`);
          return 0;
        }
        case 'show': {
          if (rest.length !== 1) throw new CliError(`decision show: give one decision id\nusage: ${USAGE}`);
          const d = getDecision(db, rest[0]!, { actor: agentOf(ctx) });
          if (!d) throw new CliError(`decision ${JSON.stringify(rest[0])} not found`);
          if (ctx.values.chain === true) {
            const chain = decisionChain(db, d.memory_id);
            if (ctx.json) printJson(ctx, { chain });
            else ctx.io.stdout(chain.map(formatRow).join('\n') + '\n');
          } else if (ctx.json) printJson(ctx, d);
          else ctx.io.stdout(renderDecisionMarkdown(d));
          return 0;
        }
        case 'export': {
          const includeSecrets = ctx.values['include-secrets'] === true;
          const r = exportDecisions(db, str(ctx, 'out') ?? 'docs/decisions', { ids: rest.length > 0 ? rest : undefined, projectId: str(ctx, 'project'), includeSecrets });
          for (const s of r.secrets) {
            ctx.io.stderr(
              s.masked
                ? `decision export: warning: ${s.decision_id} holds what looks like a secret (${s.fields} field${s.fields === 1 ? '' : 's'}); masked in ${s.file}. Pass --include-secrets to write it as typed\n`
                : `decision export: warning: ${s.decision_id} holds what looks like a secret, written as typed into ${s.file} (--include-secrets); this folder is usually committed\n`,
            );
          }
          if (ctx.json) printJson(ctx, r);
          else ctx.io.stdout(`${r.dir}: ${r.written.length} written, ${r.unchanged.length} unchanged\n`);
          return 0;
        }
        case 'import': {
          if (rest.length === 0) throw new CliError(`decision import: give a folder or file\nusage: ${USAGE}`);
          const r = importDecisions(db, rest, { actor: agentOf(ctx) });
          if (ctx.json) printJson(ctx, r);
          else {
            const count = (a: string) => r.results.filter((x) => x.action === a).length;
            const lines = r.results.filter((x) => x.action !== 'unchanged').map((x) => `${x.action.padEnd(8)} ${x.decision_id}  ${x.file}${x.id_written ? '  (id written into file)' : ''}`);
            for (const s of r.skipped) lines.push(`skipped  ${s.file}: ${s.reason}`);
            lines.push(`created ${count('created')}, updated ${count('updated')}, unchanged ${count('unchanged')}, skipped ${r.skipped.length}`);
            ctx.io.stdout(lines.join('\n') + '\n');
          }
          return 0;
        }
        case 'supersede': {
          const by = str(ctx, 'by');
          if (rest.length !== 1 || by === undefined) throw new CliError(`decision supersede: give the old id and --by <new id>\nusage: ${USAGE}`);
          const r = supersedeDecision(db, rest[0]!, by, { actor: agentOf(ctx) });
          if (ctx.json) printJson(ctx, r);
          else ctx.io.stdout(`${r.older.decision_id} superseded by ${r.newer.decision_id} (archived)\n`);
          return 0;
        }
      }
      return 2;
    });
  },
};

function parseAlt(v: string): DecisionAlternative {
  const i = v.indexOf(':');
  if (i <= 0) throw new CliError(`--alt must be "Name: why rejected", got ${JSON.stringify(v)}`);
  return { name: v.slice(0, i).trim(), reason: v.slice(i + 1).trim() };
}

function formatRow(d: DecisionRecord): string {
  const flags = [d.is_archived ? 'archived' : '', d.superseded_by ? `→ ${d.superseded_by}` : ''].filter(Boolean).join(' ');
  return `${d.decision_id}  [${String(d.importance).padStart(2)}]  ${d.title}${d.tags.length > 0 ? `  #${d.tags.join(' #')}` : ''}${flags ? `  (${flags})` : ''}`;
}
