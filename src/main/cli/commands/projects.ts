import type { ProjectInfo } from '../../core/projects/projects.ts';
import { userDataDir } from '../../paths.ts';
import { CliError, printJson, type Command } from '../command.ts';
import { CliApiError, withApi } from '../api-client.ts';

const USAGE = 'contextpack projects [--json] | projects new NAME | projects rename NAME NEW | projects delete NAME [--yes]';

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function table(projects: ProjectInfo[], current: string): string {
  const width = Math.max(7, ...projects.map((p) => p.name.length));
  const rows = projects.map((p) => {
    const sources = p.sources === null ? `unreadable: ${p.error}` : `${p.sources} sources`;
    return `${p.name === current ? '*' : ' '} ${p.name.padEnd(width)}  ${mb(p.size).padStart(9)}  ${sources.padEnd(12)}  ${p.lastUsed ?? 'never used'}  ${p.path}`;
  });
  return `${rows.join('\n')}\n`;
}

export const projectsCommand: Command = {
  name: 'projects',
  summary: 'List, create, rename or delete projects (each has its own database)',
  usage: USAGE,
  options: { yes: { type: 'boolean', default: false } },
  newProject: 'command',
  async run(ctx) {
    const home = userDataDir(ctx.io.env);
    const [action, name, extra] = ctx.args;
    const need = (v: string | undefined, what: string): string => {
      if (!v) throw new CliError(`projects ${action}: give ${what}\nusage: ${USAGE}`);
      return v;
    };
    /** A missing project or a taken name is said in the engine's words, as it always was: `projects rename: no project named x`. */
    const engineWords = async <T>(work: () => Promise<T>): Promise<T> => {
      try {
        return await work();
      } catch (err) {
        if (!(err instanceof CliApiError) || err.apiError.code === 'invalid_input') throw err;
        throw new CliError(`projects ${action}: ${err.apiError.message}`);
      }
    };
    // One door (#24): every action is a client of a projects.* method (no store is opened).
    switch (action) {
      case undefined:
        return withApi(
          ctx,
          'projects',
          async (call) => {
            const { current, projects } = await call('projects.list', {});
            if (ctx.json) printJson(ctx, { home, current, projects });
            else ctx.io.stdout(table(projects, current ?? ''));
            return 0;
          },
          {},
          true,
        );
      case 'new': {
        const projectName = need(name, 'a project name');
        return withApi(
          ctx,
          'projects new',
          async (call) => {
            const info = await call('projects.create', { name: projectName });
            if (ctx.json) printJson(ctx, info);
            else ctx.io.stdout(`created project ${info.name} (${info.path}); use it with --project ${info.name}\n`);
            return 0;
          },
          { name: '<name>' },
          true,
        );
      }
      case 'rename': {
        const from = need(name, 'the project to rename');
        const to = need(extra, 'the new name');
        return engineWords(() =>
          withApi(
            ctx,
            'projects rename',
            async (call) => {
              const info = await call('projects.rename', { name: from, newName: to });
              if (ctx.json) printJson(ctx, info);
              else ctx.io.stdout(`renamed project ${from} to ${info.name}\n`);
              return 0;
            },
            { name: '<name>', newName: '<new-name>' },
            true,
          ),
        );
      }
      case 'delete': {
        const target = need(name, 'the project to delete');
        return engineWords(() =>
          withApi(
            ctx,
            'projects delete',
            async (call) => {
              // What is about to go, for the question; a name that is no project is refused by the delete itself.
              const info = (await call('projects.list', {})).projects.find((p) => p.name === target);
              if (info && ctx.values.yes !== true) {
                const question = `Delete project ${target} (${info.sources ?? '?'} sources, ${mb(info.size)}) and everything in ${info.path.replace(/[\\/][^\\/]+$/, '')}?`;
                if (!ctx.io.confirm) throw new CliError(`projects delete: refusing to delete ${target} without --yes (no terminal to ask on)`);
                if (!(await ctx.io.confirm(question))) {
                  ctx.io.stderr('not deleted\n');
                  return 1;
                }
              }
              await call('projects.delete', { name: target });
              if (ctx.json) printJson(ctx, { deleted: target });
              else ctx.io.stdout(`deleted project ${target}\n`);
              return 0;
            },
            { name: '<name>' },
            true,
          ),
        );
      }
      default:
        throw new CliError(`projects: unknown action ${JSON.stringify(action)}\nusage: ${USAGE}`);
    }
  },
};
