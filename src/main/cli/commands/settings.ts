import { apiInputs } from '../../../shared/api/contract.ts';
import { withApi } from '../api-client.ts';
import { inputFrom, optionsFrom } from '../api-flags.ts';
import { CliError, printJson, type Command } from '../command.ts';

// settings.get / settings.set over the API handler map; the flag and its checks come from settings.set's schema.
const FIELDS = ['evidenceExclude', 'sessionStartTokens'] as const;

export const settingsCommand: Command = {
  name: 'settings',
  summary: "Show or change the project's settings (e.g. globs excluded from packet evidence by default)",
  usage:
    'contextpack settings [--json]\n' +
    "       contextpack settings --evidence-exclude 'test/**' [--evidence-exclude '**/fixtures/**']...   (replaces the list)\n" +
    '       contextpack settings --clear-evidence-exclude\n' +
    '       contextpack settings --session-start-tokens 1500   (the budget of what the SessionStart hook injects)',
  options: {
    ...optionsFrom(apiInputs['settings.set'], FIELDS),
    'clear-evidence-exclude': { type: 'boolean', default: false },
  },
  async run(ctx) {
    const input = inputFrom(apiInputs['settings.set'], FIELDS, ctx.values);
    const clear = ctx.values['clear-evidence-exclude'] === true;
    if (input.evidenceExclude !== undefined && clear) throw new CliError('settings: give --evidence-exclude or --clear-evidence-exclude, not both');
    return withApi(ctx, 'settings', async (call) => {
      const change = input.evidenceExclude !== undefined || input.sessionStartTokens !== undefined || clear;
      const settings = change ? await call('settings.set', clear ? { ...input, evidenceExclude: [] } : input) : await call('settings.get', {});
      if (ctx.json) printJson(ctx, settings);
      else {
        ctx.io.stdout(`evidence exclude (packets leave these out unless --no-default-excludes): ${settings.evidenceExclude.length === 0 ? '(none)' : settings.evidenceExclude.join('  ')}\n`);
        ctx.io.stdout(`session start tokens (the SessionStart hook's budget): ${settings.sessionStartTokens}\n`);
      }
      return 0;
    });
  },
};
