import type { MemoryRecord, MemorySort, MemoryType } from '../../../shared/memory.ts';
import { MEMORY_TYPES } from '../../../shared/memory.ts';
import type { ApiInput } from '../../../shared/api/index.ts';
import { formatMemory } from '../../core/memory/index.ts';
import { CliError, intOption, oneOf, printJson, readInput, type Command, type CommandContext } from '../command.ts';
import { agentOf, csv, str, strs, subcommand } from './memory-shared.ts';
import { withApiIssues } from '../api-client.ts';

const USAGE = [
  'contextpack memory add --type issue|state|learning --title T (--content JSON | --content-file F|- | --set field=value ...)',
  '                       [--tags a,b] [--importance 1-10] [--parent ID] [--expires ISO] [--agent A] [--project P] [--timestamp ISO]',
  'contextpack memory search [QUERY] [--type T]... [--tags a,b] [--importance-gte N] [--after ISO] [--before ISO]',
  '                          [--archived | --all] [--sort relevance|timestamp|importance|access|severity] [--limit N]',
  'contextpack memory show <id>',
  'contextpack memory archive <id> [--restore]',
  'contextpack memory delete <id> --yes',
  'contextpack memory maintain [--dry-run]',
  'contextpack memory rehydrate [--max-tokens N] [--no-touch]',
  'contextpack memory audit [id] [--limit N]',
  'contextpack memory update <id> [--title T] [--importance N] [--tags a,b] [--set field=value | --set list[]=item]... [--expires ISO]',
  'contextpack memory resolve <id> [--resolution TEXT]   (issues: status = resolved)',
].join('\n       ');

const SORTS: readonly MemorySort[] = ['relevance', 'timestamp', 'importance', 'access', 'severity'];

export const memoryCommand: Command = {
  name: 'memory',
  gatesOutput: true,
  summary: 'Project memory: add, search, show, update, resolve, archive/restore, delete, lifecycle maintenance, rehydration',
  usage: USAGE,
  options: {
    type: { type: 'string', multiple: true },
    title: { type: 'string' },
    content: { type: 'string' },
    'content-file': { type: 'string' },
    set: { type: 'string', multiple: true },
    tags: { type: 'string', multiple: true },
    importance: { type: 'string' },
    'importance-gte': { type: 'string' },
    parent: { type: 'string' },
    expires: { type: 'string' },
    timestamp: { type: 'string' },
    agent: { type: 'string' },
    project: { type: 'string' },
    after: { type: 'string' },
    before: { type: 'string' },
    archived: { type: 'boolean', default: false },
    all: { type: 'boolean', default: false },
    sort: { type: 'string' },
    limit: { type: 'string' },
    restore: { type: 'boolean', default: false },
    yes: { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    'max-tokens': { type: 'string' },
    'no-touch': { type: 'boolean', default: false },
    resolution: { type: 'string' },
  },
  async run(ctx) {
    const sub = subcommand(ctx, ['add', 'search', 'show', 'archive', 'delete', 'maintain', 'rehydrate', 'audit', 'update', 'resolve'], USAGE);
    const rest = ctx.args.slice(1);
    const one = () => {
      if (rest.length !== 1) throw new CliError(`memory ${sub}: give one memory id\nusage: ${USAGE}`);
      return rest[0]!;
    };
    // One door (#24): every subcommand is a client of the API's memory.* methods.
    const id = sub === 'add' || sub === 'search' || sub === 'rehydrate' || sub === 'maintain' || sub === 'audit' ? undefined : one();
    if (sub === 'delete' && ctx.values.yes !== true) throw new CliError('memory delete is permanent: add --yes (archive is the reversible alternative)');
    // Parsed before the API loads, so a malformed flag costs nothing.
    const add = sub === 'add' ? await addInput(ctx) : undefined;
    const search = sub === 'search' ? searchInput(ctx, rest) : undefined;
    const set = sub === 'update' ? await contentOf(ctx, false) : undefined;
    return withApiIssues(ctx, `memory ${sub}`, async (call) => {
      const agent = agentOf(ctx);
      if (sub === 'add') {
        const m = await call('memory.create', { ...add!, agent });
        if (ctx.json) printJson(ctx, m);
        else ctx.io.stdout(`${m.memory_id}  ${m.memory_type}  ${m.title}\n`);
      } else if (sub === 'search') {
        const { hits } = await call('memory.search', search!);
        if (ctx.json) printJson(ctx, { hits });
        else ctx.io.stdout(hits.length === 0 ? 'no memories\n' : hits.map((h, i) => `${String(i + 1).padStart(2)}. ${h.score.toFixed(3)}  ${row(h.memory)}`).join('\n') + '\n');
      } else if (sub === 'show') {
        const m = await call('memory.get', { id: id!, touch: true, agent });
        if (ctx.json) printJson(ctx, m);
        else ctx.io.stdout(`${formatMemory(m)}\n${m.memory_type} · ${m.is_archived ? 'archived' : 'active'} · read ${m.access_count}× · ${m.memory_id}\n`);
      } else if (sub === 'rehydrate') {
        const b = await call('memory.rehydrate', { maxTokens: intOption(ctx, 'max-tokens', undefined, -Infinity), touch: ctx.values['no-touch'] !== true, project: str(ctx, 'project') });
        if (ctx.json) printJson(ctx, b);
        else ctx.io.stdout(b.text);
      } else if (sub === 'update') {
        const r = await call('memory.update', {
          id: id!,
          title: str(ctx, 'title'),
          importance: intOption(ctx, 'importance', undefined, -Infinity),
          tags: csv(ctx, 'tags') ?? (ctx.values.tags !== undefined ? [] : undefined),
          set: Object.keys(set!).length ? set : undefined,
          expires: str(ctx, 'expires'),
          agent,
        });
        if (ctx.json) printJson(ctx, r);
        else ctx.io.stdout(`${r.memory.decision_id ?? r.memory.memory_id}  ${r.changed ? 'updated' : 'unchanged'}${r.lifecycle ? `; archived by lifecycle rule ${r.lifecycle.rule} (${r.lifecycle.reason})` : ''}\n`);
      } else if (sub === 'archive') {
        const m = await call('memory.archive', { id: id!, restore: ctx.values.restore === true, agent });
        if (ctx.json) printJson(ctx, m);
        else ctx.io.stdout(`${m.decision_id ?? m.memory_id}  ${m.is_archived ? 'archived' : 'restored'}\n`);
      } else if (sub === 'delete') {
        const r = await call('memory.delete', { id: id!, agent });
        if (ctx.json) printJson(ctx, r);
        else ctx.io.stdout(`deleted ${r.memory_id}  ${r.title}\n`);
      } else if (sub === 'maintain') {
        const r = await call('memory.maintain', { dryRun: ctx.values['dry-run'] === true, project: str(ctx, 'project') });
        if (ctx.json) printJson(ctx, r);
        else {
          const lines = [...r.archived.map((a) => `archive  ${a.memory_id}  ${a.title}  (${a.rule})`), ...r.deleted.map((a) => `delete   ${a.memory_id}  ${a.title}  (${a.rule})`)];
          lines.push(`${r.dry_run ? 'would archive' : 'archived'} ${r.archived.length}, ${r.dry_run ? 'would delete' : 'deleted'} ${r.deleted.length}`);
          ctx.io.stdout(lines.join('\n') + '\n');
        }
      } else if (sub === 'audit') {
        const { entries } = await call('memory.audit', { id: rest[0], limit: intOption(ctx, 'limit', 50, -Infinity) });
        if (ctx.json) printJson(ctx, { entries });
        else ctx.io.stdout(entries.map((e) => `${e.ts}  ${e.action.padEnd(10)} ${e.memory_type.padEnd(8)} ${e.memory_id}  ${e.title}  — ${e.reason} (${e.actor})`).join('\n') + '\n');
      } else {
        const r = await call('memory.resolve', { id: id!, resolution: str(ctx, 'resolution'), agent });
        if (ctx.json) printJson(ctx, r);
        else ctx.io.stdout(`${r.memory.memory_id}  ${r.changed ? 'resolved' : 'already resolved'}${r.lifecycle ? `; archived by lifecycle rule ${r.lifecycle.rule} (${r.lifecycle.reason})` : ''}\n`);
      }
      return 0;
    });
  },
};

async function addInput(ctx: CommandContext): Promise<Omit<ApiInput<'memory.create'>, 'agent'>> {
  const types = strs(ctx, 'type');
  if (types.length !== 1) throw new CliError(`memory add: give one --type (issue, state or learning; decisions: contextpack decision new)`);
  if (types[0] === 'decision') throw new CliError('memory add: decisions get a DEC id: use contextpack decision new');
  return {
    type: types[0] as MemoryType,
    title: str(ctx, 'title') ?? '',
    content: await contentOf(ctx),
    tags: csv(ctx, 'tags'),
    importance: intOption(ctx, 'importance', undefined, -Infinity),
    parent: str(ctx, 'parent'),
    expires: str(ctx, 'expires'),
    timestamp: str(ctx, 'timestamp'),
    project: str(ctx, 'project'),
  };
}

function searchInput(ctx: CommandContext, rest: string[]): ApiInput<'memory.search'> {
  const sort = oneOf(str(ctx, 'sort'), SORTS, 'sort', undefined);
  const types = strs(ctx, 'type').flatMap((t) => t.split(','));
  for (const t of types) oneOf(t, MEMORY_TYPES, 'type', undefined); // throws on the first unknown type
  return {
    query: rest.join(' ') || undefined,
    types: types as MemoryType[],
    tags: csv(ctx, 'tags'),
    importanceGte: intOption(ctx, 'importance-gte', undefined, -Infinity),
    after: str(ctx, 'after'),
    before: str(ctx, 'before'),
    archived: ctx.values.all === true ? 'any' : ctx.values.archived === true,
    project: str(ctx, 'project'),
    // The engine's order when none is named (the API's own default, for a caller without a query, is newest first).
    sort: sort ?? 'relevance',
    limit: intOption(ctx, 'limit', 10, -Infinity),
  };
}

/** `appendKeys`: false keeps `field[]` keys as they are, so an update appends to the stored list instead of the given ones. */
async function contentOf(ctx: CommandContext, appendKeys = true): Promise<Record<string, unknown>> {
  const inline = str(ctx, 'content');
  const file = str(ctx, 'content-file');
  let content: Record<string, unknown> = {};
  if (inline !== undefined || file !== undefined) {
    const text = inline ?? (await readInput(ctx, file!));
    try {
      content = JSON.parse(text);
    } catch {
      throw new CliError(`${inline !== undefined ? '--content' : file}: not valid JSON`);
    }
  }
  // --set field=value; `field[]=value` appends to a list; JSON values (numbers, lists) are parsed as such.
  for (const pair of strs(ctx, 'set')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`--set must be field=value, got ${JSON.stringify(pair)}`);
    const key = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1);
    if (key.endsWith('[]') && !appendKeys) content[key] = [...((content[key] as unknown[] | undefined) ?? []), raw];
    else if (key.endsWith('[]')) {
      const k = key.slice(0, -2);
      content[k] = [...((content[k] as unknown[] | undefined) ?? []), raw];
    } else content[key] = /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
  }
  return content;
}

function row(m: MemoryRecord): string {
  const sev = m.memory_type === 'issue' ? ` ${(m.content as { severity: string }).severity}` : '';
  return `${m.memory_type}${sev}  [${m.importance}]  ${m.title}  ${m.decision_id ?? m.memory_id}${m.is_archived ? '  (archived)' : ''}`;
}
