// `tributary destinations …`: the /v2/destinations API for operators, through the same service
// (features/delivery/destination-management.ts), and `tributary webhook …`, its alias for the
// developer's primary webhook (as `/v2/webhook` is the API's): the same actions, with the
// destination found from the developer. Settings are JSON: inline, or `@file` so that secrets stay
// out of the shell history and the process list.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import type { DeliveryFilters, DeliveryPage } from '../../features/delivery/deliveries.ts';
import type { DestinationView } from '../../features/delivery/destination-management.ts';
import { wireDateTime } from '../../model/time.ts';
import { openContext } from './session.ts';
import { httpUrlOption, wholeNumberOption } from './option-values.ts';
import { print, printJson, printTable, UsageError } from './output.ts';

const DELIVERY_OPTIONS =
  '[--status S] [--type T] [--user-id U] [--since ISO] [--limit N] [--cursor C] [--json]';

export const USAGE = `usage:
  tributary destinations list <dev-id> [--json]
  tributary destinations add <dev-id> --kind webhook|postgresql|s3|nats --settings JSON|@FILE [--name N]
                                  [--event-types sleep,daily|all] [--json]
  tributary destinations get <dev-id> <id> [--json]
  tributary destinations set <dev-id> <id> [--settings JSON|@FILE] [--name N] [--enable|--disable]
                                  [--event-types sleep,daily|all] [--json]
  tributary destinations delete <dev-id> <id>
  tributary destinations test <dev-id> <id> [--json]                (queues a healthcheck event to it)
  tributary destinations rotate-secret <dev-id> <id> [--json]       (a webhook's; prints the new secret once)
  tributary destinations deliveries <dev-id> <id> ${DELIVERY_OPTIONS}
  tributary destinations replay <dev-id> <id> <event-id>
settings are merged over the stored ones on set; secrets are never printed (docs/destinations.md)`;

export const WEBHOOK_USAGE = `usage:
  tributary webhook get <dev-id> [--json]
  tributary webhook set <dev-id> --url URL [--disable] [--json]    (setting a URL enables and replays held events)
  tributary webhook set <dev-id> --enable|--disable [--json]
  tributary webhook rotate-secret <dev-id> [--json]                 (prints the new secret once)
  tributary webhook test <dev-id> [--json]                          (queues a healthcheck event)
  tributary webhook deliveries <dev-id> ${DELIVERY_OPTIONS}
  tributary webhook replay <dev-id> <event-id>
the developer's primary webhook: the same as tributary destinations … with its id`;

const when = (at: Date | null) => (at ? wireDateTime(at) : null);

function readSettings(value: string): unknown {
  const text = value.startsWith('@') ? readFileSync(value.slice(1), 'utf8') : value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`--settings must be a JSON object (or @file holding one)\n${USAGE}`);
  }
}

function healthOf(view: DestinationView) {
  return {
    status: view.status,
    recent_failures: view.recentFailures,
    consecutive_failures: view.consecutiveFailures,
    failing_since: when(view.failingSince),
    disabled_at: when(view.disabledAt),
    last_success_at: when(view.lastSuccessAt),
    last_failure_at: when(view.lastFailureAt),
    held_events: view.heldEvents,
  };
}

function fieldsOf(view: DestinationView) {
  return {
    id: view.id,
    kind: view.kind,
    name: view.name,
    primary: view.primary,
    event_types: view.eventTypes?.join(',') ?? 'all',
    settings: JSON.stringify(view.settings),
    ...healthOf(view),
    created_at: when(view.createdAt),
    // A new webhook's signing secret: shown this once.
    ...(view.secret === undefined ? {} : { secret: view.secret }),
  };
}

/** The primary webhook as `tributary webhook get` has always shown it. */
function webhookFieldsOf(devId: string, view: DestinationView) {
  return {
    dev_id: devId,
    url: view.settings.url ?? null,
    ...healthOf(view),
    previous_secret_expires_at: when(view.previousSecretExpiresAt),
  };
}

function printFields(fields: Record<string, unknown>) {
  const width = Math.max(...Object.keys(fields).map((key) => key.length));
  for (const [key, value] of Object.entries(fields)) print(`${key.padEnd(width)}  ${value ?? '-'}\n`);
}

function show(view: DestinationView, json: boolean, extra: Record<string, unknown> = {}) {
  const fields = { ...fieldsOf(view), ...extra };
  if (json) return printJson({ ...fields, settings: view.settings });
  printFields(fields);
}

/** `--event-types sleep,daily` (or `all`: every type), as the service takes it (it checks the names). */
function eventTypesOption(value: string | undefined): { eventTypes?: string[] | null } {
  if (value === undefined) return {};
  if (value === 'all') return { eventTypes: null };
  return { eventTypes: value.split(',').map((type) => type.trim()) };
}

const OPTIONS = {
  kind: { type: 'string' },
  settings: { type: 'string' },
  name: { type: 'string' },
  url: { type: 'string' },
  'event-types': { type: 'string' },
  enable: { type: 'boolean', default: false },
  disable: { type: 'boolean', default: false },
  status: { type: 'string' },
  type: { type: 'string' },
  'user-id': { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

export const destinationsCommand = (config: Config, args: string[]) => run(config, args, false);
export const webhookCommand = (config: Config, args: string[]) => run(config, args, true);

/** Both groups: `webhook` takes no <id> (it is the primary webhook's) and shows the contract's fields. */
async function run(config: Config, args: string[], alias: boolean) {
  const usage = alias ? WEBHOOK_USAGE : USAGE;
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: OPTIONS });
  const devId = positionals[0];
  if (!action || !devId) throw new UsageError(usage);
  const [id, eventId] = alias ? [undefined, positionals[1]] : [positionals[1], positionals[2]];
  if (values.enable && values.disable)
    throw new UsageError(`pass at most one of --enable, --disable\n${usage}`);
  // Values of the wrong shape are usage errors, found before the store is opened.
  if (values.url !== undefined) httpUrlOption('url', values.url, usage);
  const limit = values.limit === undefined ? undefined : wholeNumberOption('limit', values.limit, usage);
  const enabled = values.enable || values.disable ? { enabled: values.enable } : {};

  const { ctx, close } = await openContext(config);
  try {
    const { webhooks } = ctx;
    const { destinations } = webhooks;
    const needId = async () => {
      if (alias) return destinations.primaryId(devId);
      if (!id) throw new UsageError(`missing <id>\n${usage}`);
      return id;
    };
    const showWebhook = (view: DestinationView, extra: Record<string, unknown> = {}) => {
      const fields = { ...webhookFieldsOf(devId, view), ...extra };
      return values.json ? printJson(fields) : printFields(fields);
    };
    switch (action) {
      case 'list': {
        if (alias) break;
        const list = await destinations.list(devId);
        if (values.json)
          return printJson(list.map((view) => ({ ...fieldsOf(view), settings: view.settings })));
        return printTable(
          list.map((view) => ({
            id: view.id,
            kind: view.kind,
            name: view.name,
            status: view.status,
            held: view.heldEvents,
          })),
        );
      }
      case 'add': {
        if (alias) break;
        if (!values.kind || values.settings === undefined)
          throw new UsageError(`--kind and --settings are required\n${usage}`);
        const created = await destinations.create(devId, {
          kind: values.kind,
          settings: readSettings(values.settings),
          ...(values.name === undefined ? {} : { name: values.name }),
          ...eventTypesOption(values['event-types']),
        });
        return show(created, values.json);
      }
      case 'get': {
        const view = await destinations.get(devId, await needId());
        return alias ? showWebhook(view) : show(view, values.json);
      }
      case 'set': {
        if (alias) {
          if (!values.url && !values.enable && !values.disable)
            throw new UsageError(`--url, --enable or --disable is required\n${usage}`);
          const result = await webhooks.setDestination(devId, {
            ...(values.url ? { url: values.url } : {}),
            ...enabled,
          });
          return showWebhook(result, { replayed: result.replayed });
        }
        const result = await destinations.update(devId, await needId(), {
          ...(values.settings === undefined ? {} : { settings: readSettings(values.settings) }),
          ...(values.name === undefined ? {} : { name: values.name }),
          ...eventTypesOption(values['event-types']),
          ...enabled,
        });
        return show(result, values.json, { replayed: result.replayed });
      }
      case 'delete': {
        if (alias) break;
        await destinations.remove(devId, await needId());
        return print(`${id}: deleted\n`);
      }
      case 'rotate-secret': {
        const rotated = await destinations.rotateSecret(devId, await needId());
        const output = {
          ...(alias ? { dev_id: devId } : { id }),
          secret: rotated.secret,
          previous_secret_expires_at: wireDateTime(rotated.previousSecretExpiresAt),
        };
        return values.json ? printJson(output) : printFields(output);
      }
      case 'test': {
        const { eventId: queued } = await destinations.sendTest(devId, await needId());
        if (values.json) return printJson({ status: 'queued', event_id: queued });
        return print(`queued healthcheck ${queued} (delivered by a running worker)\n`);
      }
      case 'deliveries':
        return printDeliveries(
          await destinations.deliveries(devId, await needId(), {
            ...filtersOf(values),
            ...(limit === undefined ? {} : { limit }),
          }),
          values.json,
        );
      case 'replay': {
        if (!eventId) throw new UsageError(`missing <event-id>\n${usage}`);
        await destinations.replay(devId, await needId(), eventId);
        return print(`${eventId}: queued for delivery\n`);
      }
    }
    throw new UsageError(usage);
  } finally {
    await close();
  }
}

function filtersOf(values: {
  status?: string;
  type?: string;
  'user-id'?: string;
  since?: string;
  cursor?: string;
}): DeliveryFilters {
  return {
    ...(values.status ? { status: values.status } : {}),
    ...(values.type ? { type: values.type } : {}),
    ...(values['user-id'] ? { userId: values['user-id'] } : {}),
    ...(values.since ? { since: values.since } : {}),
    ...(values.cursor ? { cursor: values.cursor } : {}),
  };
}

function printDeliveries(page: DeliveryPage, json: boolean) {
  if (json) return printJson({ deliveries: page.deliveries, next_cursor: page.nextCursor });
  printTable(
    page.deliveries.map((delivery) => {
      const last = delivery.attempts.at(-1);
      return {
        event_id: delivery.eventId,
        type: delivery.type,
        user_id: delivery.userId,
        status: delivery.status,
        attempts: delivery.attemptCount,
        last: last ? (last.statusCode ?? last.error) : delivery.lastError,
        created_at: when(delivery.createdAt),
        next_attempt_at: when(delivery.nextAttemptAt),
      };
    }),
  );
  if (page.nextCursor) print(`more: --cursor ${page.nextCursor}\n`);
}
