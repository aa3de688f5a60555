import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import { openContext } from './session.ts';
import { printJson, printTable, UsageError } from './output.ts';

export const USAGE = `usage:
  tributary providers list [--dev-id D] [--json]
  tributary providers set --dev-id D [--enable A,B] [--disable C] [--json]
  tributary providers subscribe --provider P [--callback-base URL] [--json]

Without --dev-id, lists the deployment's providers and their setup (credentials come from
<PROVIDER>_CLIENT_ID / <PROVIDER>_CLIENT_SECRET). With one, shows or changes which of them that
developer offers (default: every provider enabled on the deployment). \`subscribe\` creates this
deployment's push subscriptions at a provider that has a subscription API (callback:
<PUBLIC_URL or --callback-base>/providers/<P>/webhook); the service must be reachable there.`;

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export async function providersCommand(config: Config, args: string[]) {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      'dev-id': { type: 'string' },
      enable: { type: 'string' },
      disable: { type: 'string' },
      json: { type: 'boolean', default: false },
      provider: { type: 'string' },
      'callback-base': { type: 'string' },
    },
  });
  const devId = values['dev-id'];
  const { ctx, close } = await openContext(config);
  try {
    let rows: Record<string, unknown>[];
    switch (action) {
      case 'list': {
        if (devId) {
          rows = await ctx.integrations.forDeveloper((await ctx.developers.get(devId)).id);
        } else {
          rows = ctx.providers.list().map((provider) => ({
            provider: provider.id,
            name: provider.declaration.name,
            auth: provider.declaration.authKind,
            setup: provider.setup,
            enabled: provider.enabled,
          }));
        }
        break;
      }
      case 'set': {
        if (!devId) throw new UsageError(`--dev-id is required\n${USAGE}`);
        const enable = list(values.enable);
        const disable = list(values.disable);
        if (enable.length + disable.length === 0)
          throw new UsageError(`pass --enable and/or --disable\n${USAGE}`);
        const developer = await ctx.developers.get(devId);
        rows = await ctx.integrations.setForDeveloper(developer.id, { enable, disable });
        break;
      }
      case 'subscribe': {
        if (!values.provider) throw new UsageError(`--provider is required\n${USAGE}`);
        const records = await ctx.connectors.subscriptions.ensure(values.provider, values['callback-base']);
        rows = records.map((record) => ({ ...record, expiresAt: record.expiresAt?.toISOString() ?? null }));
        break;
      }
      default:
        throw new UsageError(USAGE);
    }
    if (values.json) printJson(rows);
    else printTable(rows);
  } finally {
    await close();
  }
}
