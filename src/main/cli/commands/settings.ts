import { getSettings, SettingsError, updateSettings } from '../../core/settings/index.ts';
import { CliError, printJson, withStore, type Command } from '../command.ts';

export const settingsCommand: Command = {
  name: 'settings',
  summary: "Show or change the project's settings (e.g. globs excluded from packet evidence by default)",
  usage:
    'contextpack settings [--json]\n' +
    "       contextpack settings --evidence-exclude 'test/**' [--evidence-exclude '**/fixtures/**']...   (replaces the list)\n" +
    '       contextpack settings --clear-evidence-exclude',
  options: {
    'evidence-exclude': { type: 'string', multiple: true },
    'clear-evidence-exclude': { type: 'boolean', default: false },
  },
  async run(ctx) {
    const given = ctx.values['evidence-exclude'] as string[] | undefined;
    const clear = ctx.values['clear-evidence-exclude'] === true;
    if (given && clear) throw new CliError('settings: give --evidence-exclude or --clear-evidence-exclude, not both');
    return withStore(ctx, (store) => {
      let settings;
      try {
        settings = given || clear ? updateSettings(store.db, { evidenceExclude: clear ? [] : given }) : getSettings(store.db);
      } catch (err) {
        if (err instanceof SettingsError) throw new CliError(`settings: --evidence-exclude ${err.message}`);
        throw err;
      }
      if (ctx.json) printJson(ctx, settings);
      else ctx.io.stdout(`evidence exclude (packets leave these out unless --no-default-excludes): ${settings.evidenceExclude.length === 0 ? '(none)' : settings.evidenceExclude.join('  ')}\n`);
      return 0;
    });
  },
};
