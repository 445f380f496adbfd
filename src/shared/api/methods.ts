// The allow-list of API method and event names, kept free of dependencies so the sandboxed preload can bundle it.

export const API_METHODS = [
  'app.info',
  'stats.get',
  'sources.list',
  'library.ingest',
  'library.import',
  'library.rescan',
  'library.refresh',
  'library.embed',
  'sources.remove',
  'sources.reindex',
  'sources.chunks',
  'settings.get',
  'settings.set',
  'search.query',
  'chunks.context',
  'decisions.list',
  'decisions.create',
  'decisions.supersede',
  'decisions.exportMarkdown',
  'decisions.get',
  'decisions.supersedeBy',
  'decisions.exportFiles',
  'decisions.import',
  'hierarchy.tree',
  'hierarchy.summary',
  'hierarchy.show',
  'memory.create',
  'memory.rehydrate',
  'packets.build',
  'packets.list',
  'packets.get',
  'packets.replay',
  'models.list',
  'models.download',
  'models.cancel',
  'models.use',
  'projects.list',
  'projects.create',
  'projects.switch',
  'projects.rename',
  'projects.delete',
  'roots.list',
  'roots.setWatch',
  'watch.status',
  'desktop.pickPaths',
  'desktop.copyText',
  'sessions.capacity',
  'sessions.analyze',
  'sessions.handoff',
  'sessions.handoffGet',
  'sessions.end',
  'sessions.list',
  'sessions.captures',
  'memory.search',
  'memory.get',
  'memory.update',
  'memory.resolve',
  'memory.archive',
  'memory.delete',
  'memory.maintain',
  'memory.audit',
  'goals.show',
  'goals.record',
  'redact.text',
  'hierarchy.addSection',
  'hierarchy.editSection',
  'hierarchy.own',
  'hierarchy.owners',
  'hierarchy.draft',
  'hierarchy.hints',
] as const;

export type ApiMethod = (typeof API_METHODS)[number];

export const API_EVENTS = ['ingest.progress', 'embed.progress', 'models.progress', 'library.changed', 'watch.status'] as const;
export type ApiEventName = (typeof API_EVENTS)[number];

export function isApiMethod(name: unknown): name is ApiMethod {
  return typeof name === 'string' && (API_METHODS as readonly string[]).includes(name);
}

/** IPC channel names: one per method, so main registers each on ipcMain.handle and nothing else answers. */
export const ipcChannel = (method: ApiMethod): string => `api:${method}`;
export const IPC_EVENT_CHANNEL = 'api:event';
