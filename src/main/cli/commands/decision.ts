import { isAbsolute, relative, resolve } from 'node:path';
import type { DecisionAlternative, DecisionInput, DecisionRecord } from '../../../shared/memory.ts';
import type { ApiInput, ApiOutput } from '../../../shared/api/index.ts';
import { DecisionFileError, parseDecisionMarkdown } from '../../core/memory/decision-markdown.ts';
import { CliError, printJson, readInput, type Command, type CommandContext } from '../command.ts';
import { agentOf, csv, str, strs, subcommand, num } from './memory-shared.ts';
import { CliApiError, withApiIssues } from '../api-client.ts';

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
    // One door (#24): every subcommand is a client of a decisions.* method; only `new --from` reads its file here.
    const input = sub === 'new' ? await newInput(ctx) : undefined;
    if (input === null) return 2;
    return withApiIssues(ctx, `decision ${sub}`, async (call) => {
      switch (sub) {
        case 'list': {
          const { decisions } = await call('decisions.list', {
            query: str(ctx, 'query'),
            tags: csv(ctx, 'tags'),
            importanceGte: num(ctx, 'importance-gte') as number | undefined,
            archived: ctx.values.all === true ? ('any' as const) : ctx.values.archived === true,
            project: str(ctx, 'project'),
            // The engine's order: relevance with a query, else most important first.
            sort: str(ctx, 'query') ? ('relevance' as const) : ('importance' as const),
            limit: (num(ctx, 'limit') ?? 1000) as number,
          });
          if (ctx.json) printJson(ctx, { decisions });
          else ctx.io.stdout(decisions.length === 0 ? 'no decisions\n' : decisions.map(formatRow).join('\n') + '\n');
          return 0;
        }
        case 'new': {
          const d = await call('decisions.create', input!);
          if (ctx.json) printJson(ctx, d);
          else ctx.io.stdout(`${d.decision_id}  ${d.title}${d.supersedes ? `  (supersedes ${d.supersedes}, now archived)` : ''}\n`);
          return 0;
        }
        case 'show': {
          if (rest.length !== 1) throw new CliError(`decision show: give one decision id\nusage: ${USAGE}`);
          const chained = ctx.values.chain === true;
          const { decision, markdown, chain } = await call('decisions.get', { id: rest[0]!, chain: chained || undefined, agent: agentOf(ctx) });
          if (chained) {
            if (ctx.json) printJson(ctx, { chain });
            else ctx.io.stdout(chain!.map(formatRow).join('\n') + '\n');
          } else if (ctx.json) printJson(ctx, decision);
          else ctx.io.stdout(markdown);
          return 0;
        }
        case 'export': {
          const r = await call('decisions.exportFiles', {
            dir: resolve(str(ctx, 'out') ?? 'docs/decisions'),
            decisionIds: rest.length > 0 ? rest : undefined,
            project: str(ctx, 'project'),
            includeSecrets: ctx.values['include-secrets'] === true,
          });
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
          let r: ApiOutput<'decisions.import'>;
          try {
            r = await call('decisions.import', { paths: rest.map((p) => resolve(p)), agent: agentOf(ctx) });
          } catch (err) {
            // A malformed file is said as `FILE:LINE: …`, as it always was.
            if (err instanceof CliApiError && err.apiError.issues?.[0]?.field === 'paths' && !ctx.json) throw new CliError(err.apiError.message);
            throw err;
          }
          // Files named as the user named their folders: relative ones stay relative.
          const shown = (f: string) => (rest.every((p) => !isAbsolute(p)) ? relative(process.cwd(), f) : f);
          if (ctx.json) printJson(ctx, r);
          else {
            const count = (a: string) => r.results.filter((x) => x.action === a).length;
            const lines = r.results.filter((x) => x.action !== 'unchanged').map((x) => `${x.action.padEnd(8)} ${x.decision_id}  ${shown(x.file)}${x.id_written ? '  (id written into file)' : ''}`);
            for (const s of r.skipped) lines.push(`skipped  ${shown(s.file)}: ${s.reason}`);
            lines.push(`created ${count('created')}, updated ${count('updated')}, unchanged ${count('unchanged')}, skipped ${r.skipped.length}`);
            ctx.io.stdout(lines.join('\n') + '\n');
          }
          return 0;
        }
        case 'supersede': {
          const by = str(ctx, 'by');
          if (rest.length !== 1 || by === undefined) throw new CliError(`decision supersede: give the old id and --by <new id>\nusage: ${USAGE}`);
          const r = await call('decisions.supersedeBy', { decisionId: rest[0]!, by, agent: agentOf(ctx) });
          if (ctx.json) printJson(ctx, r);
          else ctx.io.stdout(`${r.older.decision_id} superseded by ${r.newer.decision_id} (archived)\n`);
          return 0;
        }
      }
      return 2;
    }, FLAGS);
  },
};

/** The flags whose API field is named otherwise. */
const FLAGS: Record<string, string> = { alternatives_considered: '--alt', expected_impact: '--impact', validation_criteria: '--validation', decisionId: '<old DEC-id>', decisionIds: '<DEC-id>', dir: '--out', paths: '<dir|file>' };

/** `decision new`: the form from its flags, or from a file in the decision template's layout (`--from`). */
/** null: the file was refused, and said so on stdout (--json). */
async function newInput(ctx: CommandContext): Promise<ApiInput<'decisions.create'> | null> {
  const from = str(ctx, 'from');
  let input: ApiInput<'decisions.create'>;
  if (from !== undefined) {
    let parsed: DecisionInput;
    try {
      parsed = parseDecisionMarkdown(await readInput(ctx, from), from === '-' ? '<stdin>' : from).input;
    } catch (err) {
      if (!(err instanceof DecisionFileError)) throw err;
      if (ctx.json) {
        printJson(ctx, { error: err.message, file: err.file, line: err.line, field: err.field });
        return null;
      }
      throw new CliError(err.message);
    }
    const { agent_id, project_id, decision_id: _id, ...rest } = parsed;
    input = { ...rest, agent: agent_id, project: project_id };
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
      importance: num(ctx, 'importance') as number,
      timestamp: str(ctx, 'timestamp'),
    };
  }
  input.agent = agentOf(ctx) ?? input.agent;
  input.project = str(ctx, 'project') ?? input.project;
  input.supersedes = str(ctx, 'supersedes') ?? input.supersedes;
  return input;
}

function parseAlt(v: string): DecisionAlternative {
  const i = v.indexOf(':');
  if (i <= 0) throw new CliError(`--alt must be "Name: why rejected", got ${JSON.stringify(v)}`);
  return { name: v.slice(0, i).trim(), reason: v.slice(i + 1).trim() };
}

function formatRow(d: DecisionRecord): string {
  const flags = [d.is_archived ? 'archived' : '', d.superseded_by ? `→ ${d.superseded_by}` : ''].filter(Boolean).join(' ');
  return `${d.decision_id}  [${String(d.importance).padStart(2)}]  ${d.title}${d.tags.length > 0 ? `  #${d.tags.join(' #')}` : ''}${flags ? `  (${flags})` : ''}`;
}
