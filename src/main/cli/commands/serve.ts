import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApi, createProjectHost } from '../../api/index.ts';
import { openStore } from '../../core/store/index.ts';
import { currentProjectName, dataDirFor, defaultModelDirs, projectDbPath, userDataDir } from '../../paths.ts';
import { startServer } from '../../serve/server.ts';
import { modelBaseUrl } from '../../core/embed/download.ts';
import { CliError, intOption, type Command } from '../command.ts';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Serve the workbench to a browser on 127.0.0.1, with a per-run token',
  usage: 'contextpack serve [--port N] [--db FILE | --project NAME] [--host 127.0.0.1] [--renderer DIR] [--root DIR ...]',
  options: { port: { type: 'string' }, host: { type: 'string' }, renderer: { type: 'string' }, root: { type: 'string', multiple: true } },
  async run(ctx) {
    const port = intOption(ctx, 'port', 0, 0);
    if (port > 65535) throw new CliError(`--port must be at most 65535, got ${port}`);
    const rendererDir = typeof ctx.values.renderer === 'string' ? ctx.values.renderer : join(repoRoot, 'out', 'renderer');
    const ingestRoots = allowedRoots(ctx.values.root as string[] | undefined);
    const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
    const env = ctx.io.env;
    const dbFlag = ctx.values.db as string | undefined;
    // A named database file pins the window to it; otherwise it opens a project and may switch to another.
    const fixed = dbFlag !== undefined || Boolean(env.CONTEXTPACK_DB);
    const host = createProjectHost({
      home: userDataDir(env),
      project: fixed ? null : currentProjectName(ctx.values.project as string | undefined, env),
      open: (project, projects) => {
        const dbPath = project === null ? ctx.dbPath : projectDbPath(project, env);
        const store = openStore(dbPath);
        if (store.readOnlyReason) ctx.io.stderr(`contextpack: warning: ${store.readOnlyReason}\n`);
        const api = createApi({
          store,
          dataDir: dataDirFor(dbFlag, dbPath, env),
          modelDirs: defaultModelDirs(env),
          modelDownloads: { dir: join(userDataDir(env), 'models'), baseUrl: modelBaseUrl(env) },
          version,
          transport: 'http',
          // A browser page may name any path; only these folders (and uploads) are read. None named: uploads only.
          ingestRoots,
          projects,
          onError: (method, err) => ctx.io.stderr(`contextpack serve: ${method}: ${(err as Error).stack ?? String(err)}\n`),
        });
        return { store, api };
      },
    });
    let server;
    try {
      server = await startServer({ dispatch: host.dispatch, events: host.events, rendererDir, host: (ctx.values.host as string | undefined) ?? '127.0.0.1', port });
    } catch (err) {
      await host.close();
      throw new CliError(`serve: ${(err as Error).message}`, 1);
    }
    ctx.io.stdout(ingestRoots.length > 0
      ? `library.ingest reads paths under: ${ingestRoots.join(', ')}\n`
      : 'library.ingest by path is off (no --root DIR); uploads work\n');
    const opened = host.current();
    ctx.io.stdout(`ContextPack is serving ${opened.project === null ? '' : `project ${opened.project}: `}${opened.store.path}\nopen ${server.openUrl}\n(the token in the link is required on every API call; Ctrl+C stops)\n`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await server.close();
    await host.close();
    return 0;
  },
};

/** --root folders as real paths (a link cannot widen them later); each must be an existing folder. */
export function allowedRoots(given: string[] | undefined): string[] {
  return (given ?? []).map((dir) => {
    let real: string;
    try {
      real = realpathSync(resolve(dir));
    } catch (err) {
      throw new CliError(`--root ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (!statSync(real).isDirectory()) throw new CliError(`--root ${dir}: not a folder`);
    return real;
  });
}
