import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import { openContext } from './session.ts';
import { wholeNumberOption } from './option-values.ts';
import { print, printJson, printTable, UsageError } from './output.ts';

export const USAGE = `usage:
  tributary developers create --name N --environment sandbox|production [--order-api] [--json]
  tributary developers list [--json]
  tributary developers suspend|resume <dev-id>
  tributary developers set-limit <dev-id> --hourly-days N   (or --hourly-days default)
  tributary developers order-api <dev-id> --enable|--disable
  tributary keys create <dev-id> [--json]
  tributary keys list <dev-id> [--json]
  tributary keys revoke <dev-id> <key-id>`;

export async function developersCommand(config: Config, args: string[]) {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      environment: { type: 'string' },
      'order-api': { type: 'boolean', default: false },
      'hourly-days': { type: 'string' },
      enable: { type: 'boolean', default: false },
      disable: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const devId = positionals[0];
  const needDevId = () => {
    if (!devId) throw new UsageError(`missing <dev-id>\n${USAGE}`);
    return devId;
  };

  const { ctx, close } = await openContext(config);
  try {
    const developers = ctx.developers;
    switch (action) {
      case 'create': {
        if (!values.name) throw new UsageError(`--name is required\n${USAGE}`);
        if (values.environment !== 'sandbox' && values.environment !== 'production') {
          throw new UsageError(`--environment must be sandbox or production\n${USAGE}`);
        }
        const created = await developers.create({
          name: values.name,
          environment: values.environment,
          orderApiAccess: values['order-api'],
        });
        const output = {
          dev_id: created.developer.id,
          api_key: created.apiKey,
          environment: created.developer.environment,
          webhook_secret: created.webhookSecret,
        };
        if (values.json) printJson(output);
        else printTable([output]);
        return;
      }
      case 'list': {
        const all = await developers.list();
        const urls = await ctx.webhooks.destinationUrls(all.map((developer) => developer.id));
        const list = all.map((developer) => ({
          dev_id: developer.id,
          name: developer.name,
          environment: developer.environment,
          status: developer.status,
          order_api: developer.orderApiAccess,
          hourly_days_limit: developer.hourlyDaysLimit,
          webhook_url: urls.get(developer.id) ?? null,
          created_at: developer.createdAt,
        }));
        if (values.json) printJson(list);
        else printTable(list);
        return;
      }
      case 'suspend':
      case 'resume': {
        const developer = await developers.setStatus(
          needDevId(),
          action === 'suspend' ? 'suspended' : 'active',
        );
        print(`${developer.id}: ${developer.status}\n`);
        return;
      }
      case 'set-limit': {
        const raw = values['hourly-days'];
        if (!raw) throw new UsageError(`--hourly-days is required\n${USAGE}`);
        const days = raw === 'default' ? null : wholeNumberOption('hourly-days', raw, USAGE);
        const developer = await developers.setHourlyDaysLimit(needDevId(), days);
        print(`${developer.id}: hourly limit ${developer.hourlyDaysLimit ?? 'default'} days\n`);
        return;
      }
      case 'order-api': {
        if (values.enable === values.disable)
          throw new UsageError(`pass exactly one of --enable, --disable\n${USAGE}`);
        const developer = await developers.setOrderApiAccess(needDevId(), values.enable);
        print(`${developer.id}: order API ${developer.orderApiAccess ? 'enabled' : 'disabled'}\n`);
        return;
      }
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await close();
  }
}

export async function keysCommand(config: Config, args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const [action, devId, keyId] = positionals;
  const json = values.json;
  if (!devId) throw new UsageError(USAGE);
  const { ctx, close } = await openContext(config);
  try {
    switch (action) {
      case 'create': {
        const key = await ctx.developers.createKey(devId);
        if (json) printJson({ dev_id: devId, key_id: key.id, api_key: key.apiKey });
        else print(`${key.id}  ${key.apiKey}\n`);
        return;
      }
      case 'list': {
        const keys = await ctx.developers.listKeys(devId);
        if (json) printJson(keys);
        else printTable(keys);
        return;
      }
      case 'revoke': {
        if (!keyId) throw new UsageError(`missing <key-id>\n${USAGE}`);
        await ctx.developers.revokeKey(devId, keyId);
        print(`${keyId}: revoked\n`);
        return;
      }
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await close();
  }
}
