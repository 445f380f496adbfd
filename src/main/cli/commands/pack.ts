import { PACKET_FORMATS, PACKET_TEMPLATES, TASK_PROFILES, type PacketFormat, type PacketTemplateId, type TaskProfile } from '../../../shared/packet.ts';
import { InputFileError, parseConversationFile, parseToolsFile } from '../../core/packet/index.ts';
import { TOKEN_ENCODINGS, type TokenEncoding } from '../../core/tokens/index.ts';
import { CliError, intOption, oneOf, readInput, type Command } from '../command.ts';
import { withApi } from '../api-client.ts';
import { writeAtomic } from './packet-shared.ts';
import { FILTER_OPTIONS, FILTER_USAGE, filtersFromFlags } from './filter-flags.ts';

export const packCommand: Command = {
  name: 'pack',
  summary: 'Assemble a context packet (budgets, redaction, manifest, snapshot hash)',
  usage:
    'contextpack pack [--query "…"] [--task-file F|-] (one or both: the task feeds retrieval too) [--template ao-v1|layered-v1]\n' +
    '                 [--max-tokens N] [--format md|json|contextos]\n' +
    '                 [--out F] [--k N] [--encoding o200k_base|cl100k_base] [--profile research|docs|tests] [--session ID]\n' +
    '                 [--tools-file F] [--conversation-file F] [--keep-turns N] [--db FILE | --project NAME] [--json]\n' +
    `                 ${FILTER_USAGE} [--no-default-excludes]   (the project's default excludes: contextpack settings)`,
  options: {
    query: { type: 'string', short: 'q' },
    'task-file': { type: 'string' },
    template: { type: 'string' },
    'max-tokens': { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string', short: 'o' },
    k: { type: 'string' },
    encoding: { type: 'string' },
    profile: { type: 'string' },
    session: { type: 'string' },
    'no-default-excludes': { type: 'boolean', default: false },
    ...FILTER_OPTIONS,
    'tools-file': { type: 'string' },
    'conversation-file': { type: 'string' },
    'keep-turns': { type: 'string' },
  },
  async run(ctx) {
    const taskFile = ctx.values['task-file'] as string | undefined;
    const task = taskFile === undefined ? undefined : await readInput(ctx, taskFile, '--task-file');
    // Issue #32: the task feeds retrieval, so an issue handed over with --task-file needs no separate query; its
    // first line (an issue's title) is the query the packet records.
    const given = (ctx.values.query as string | undefined) ?? ctx.args.join(' ');
    const query = given.trim() === '' && task !== undefined ? (task.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 500) : given;
    if (query.trim() === '') throw new CliError(`pack: give --query "…" or --task-file F\nusage: ${this.usage}`);
    const template = oneOf<PacketTemplateId>(ctx.values.template, PACKET_TEMPLATES, 'template', 'ao-v1');
    const format = oneOf<PacketFormat>(ctx.values.format, PACKET_FORMATS, 'format', ctx.json ? 'json' : 'md');
    const encoding = oneOf<TokenEncoding>(ctx.values.encoding, TOKEN_ENCODINGS, 'encoding', 'o200k_base');
    const profile = oneOf<TaskProfile>(ctx.values.profile, TASK_PROFILES, 'profile', 'research');
    const maxTokens = ctx.values['max-tokens'] === undefined ? undefined : intOption(ctx, 'max-tokens', 7000, 250);
    const k = ctx.values.k === undefined ? undefined : intOption(ctx, 'k', 20, 0);
    const filters = filtersFromFlags(ctx);
    const useDefaultExcludes = ctx.values['no-default-excludes'] !== true;
    // Tools and turns feed layered-v1's TOOLS and CONVERSATION layers (ao-v1 records the tools in its manifest).
    const toolsFile = ctx.values['tools-file'] as string | undefined;
    const convFile = ctx.values['conversation-file'] as string | undefined;
    const keepTurns = ctx.values['keep-turns'] === undefined ? undefined : intOption(ctx, 'keep-turns', 5, 0);
    let tools;
    let conversation;
    try {
      tools = toolsFile === undefined ? undefined : parseToolsFile(await readInput(ctx, toolsFile, '--tools-file'), toolsFile);
      conversation = convFile === undefined ? undefined : parseConversationFile(await readInput(ctx, convFile, '--conversation-file'), convFile);
    } catch (err) {
      if (err instanceof InputFileError) throw new CliError(err.message);
      throw err;
    }
    // One door (#24): the packet is built by the API's packets.build, as IPC, HTTP and MCP build it.
    return withApi(
      ctx,
      'pack',
      async (call) => {
        const result = await call('packets.build', {
          query,
          task,
          template,
          maxTokens,
          encoding,
          k,
          filters,
          useDefaultExcludes: useDefaultExcludes ? undefined : false,
          profile: template === 'layered-v1' ? profile : undefined,
          sessionId: (ctx.values.session as string | undefined) ?? undefined,
          tools,
          conversation,
          keepTurns,
          format,
        });
        const out = ctx.values.out as string | undefined;
        if (out) {
          writeAtomic(out, result.text);
          const b = result.manifest.budgets;
          ctx.io.stderr(`wrote ${out}: ${b.total_chars} section chars, ${b.total_tokens} tokens (${encoding}), ${result.manifest.redactions.count} lines redacted, hash ${result.hash}\n`);
        } else ctx.io.stdout(result.text);
        return 0;
      },
      { maxTokens: '--max-tokens', sessionId: '--session', keepTurns: '--keep-turns', filters: '--path', 'filters.include': '--path', 'filters.types': '--type', tools: '--tools-file', conversation: '--conversation-file' },
    );
  },
};
