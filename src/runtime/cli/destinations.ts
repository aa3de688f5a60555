// `tributary destinations …`: the /v2/destinations API for operators, through the same service
// (features/delivery/destinations-service.ts). Settings are JSON: inline, or `@file` so that
// secrets stay out of the shell history and the process list.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import type { DestinationView } from '../../features/delivery/destinations-service.ts';
import { wireDateTime } from '../../model/time.ts';
import { openContext } from './session.ts';
import { print, printJson, printTable, UsageError } from './output.ts';

export const USAGE = `usage:
  tributary destinations list <dev-id> [--json]
  tributary destinations add <dev-id> --kind webhook|postgresql|s3|nats --settings JSON|@FILE [--name N]
                                  [--event-types sleep,daily|all] [--json]
  tributary destinations get <dev-id> <id> [--json]
  tributary destinations set <dev-id> <id> [--settings JSON|@FILE] [--name N] [--enable|--disable]
                                  [--event-types sleep,daily|all] [--json]
  tributary destinations delete <dev-id> <id>
  tributary destinations test <dev-id> <id> [--json]                (queues a healthcheck event to it)
  tributary destinations deliveries <dev-id> <id> [--status S] [--limit N] [--cursor C] [--json]
  tributary destinations replay <dev-id> <id> <event-id>
settings are merged over the stored ones on set; secrets are never printed (docs/destinations.md)`;

const when = (at: Date | null) => (at ? wireDateTime(at) : null);

function readSettings(value: string): unknown {
  const text = value.startsWith('@') ? readFileSync(value.slice(1), 'utf8') : value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`--settings must be a JSON object (or @file holding one)\n${USAGE}`);
  }
}

function fieldsOf(view: DestinationView) {
  return {
    id: view.id,
    kind: view.kind,
    name: view.name,
    primary: view.primary,
    event_types: view.eventTypes?.join(',') ?? 'all',
    settings: JSON.stringify(view.settings),
    status: view.status,
    recent_failures: view.recentFailures,
    consecutive_failures: view.consecutiveFailures,
    failing_since: when(view.failingSince),
    disabled_at: when(view.disabledAt),
    last_success_at: when(view.lastSuccessAt),
    last_failure_at: when(view.lastFailureAt),
    held_events: view.heldEvents,
    created_at: when(view.createdAt),
    // A new secondary webhook's signing secret: shown this once.
    ...(view.secret === undefined ? {} : { secret: view.secret }),
  };
}

function show(view: DestinationView, json: boolean, extra: Record<string, unknown> = {}) {
  const fields = { ...fieldsOf(view), ...extra };
  if (json) return printJson({ ...fields, settings: view.settings });
  const width = Math.max(...Object.keys(fields).map((key) => key.length));
  for (const [key, value] of Object.entries(fields)) print(`${key.padEnd(width)}  ${value ?? '-'}\n`);
}

/** `--event-types sleep,daily` (or `all`: every type), as the service takes it (it checks the names). */
function eventTypesOption(value: string | undefined): { eventTypes?: string[] | null } {
  if (value === undefined) return {};
  if (value === 'all') return { eventTypes: null };
  return { eventTypes: value.split(',').map((type) => type.trim()) };
}

export async function destinationsCommand(config: Config, args: string[]) {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      kind: { type: 'string' },
      settings: { type: 'string' },
      name: { type: 'string' },
      'event-types': { type: 'string' },
      enable: { type: 'boolean', default: false },
      disable: { type: 'boolean', default: false },
      status: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [devId, id, eventId] = positionals;
  if (!action || !devId) throw new UsageError(USAGE);
  const needId = () => {
    if (!id) throw new UsageError(`missing <id>\n${USAGE}`);
    return id;
  };

  const { ctx, close } = await openContext(config);
  try {
    const destinations = ctx.webhooks.destinations;
    switch (action) {
      case 'list': {
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
        if (!values.kind || values.settings === undefined)
          throw new UsageError(`--kind and --settings are required\n${USAGE}`);
        const created = await destinations.create(devId, {
          kind: values.kind,
          settings: readSettings(values.settings),
          ...(values.name === undefined ? {} : { name: values.name }),
          ...eventTypesOption(values['event-types']),
        });
        return show(created, values.json);
      }
      case 'get':
        return show(await destinations.get(devId, needId()), values.json);
      case 'set': {
        if (values.enable && values.disable)
          throw new UsageError(`pass at most one of --enable, --disable\n${USAGE}`);
        const result = await destinations.update(devId, needId(), {
          ...(values.settings === undefined ? {} : { settings: readSettings(values.settings) }),
          ...(values.name === undefined ? {} : { name: values.name }),
          ...eventTypesOption(values['event-types']),
          ...(values.enable || values.disable ? { enabled: values.enable } : {}),
        });
        return show(result, values.json, { replayed: result.replayed });
      }
      case 'delete':
        await destinations.remove(devId, needId());
        return print(`${id}: deleted\n`);
      case 'test': {
        const { eventId: queued } = await destinations.sendTest(devId, needId());
        if (values.json) return printJson({ status: 'queued', event_id: queued });
        return print(`queued healthcheck ${queued} (delivered by a running worker)\n`);
      }
      case 'deliveries': {
        const limit = values.limit === undefined ? undefined : Number(values.limit);
        const page = await destinations.deliveries(devId, needId(), {
          ...(values.status ? { status: values.status } : {}),
          ...(values.cursor ? { cursor: values.cursor } : {}),
          ...(limit === undefined ? {} : { limit }),
        });
        if (values.json) return printJson({ deliveries: page.deliveries, next_cursor: page.nextCursor });
        printTable(
          page.deliveries.map((delivery) => ({
            event_id: delivery.eventId,
            type: delivery.type,
            status: delivery.status,
            attempts: delivery.attemptCount,
            last_error: delivery.lastError,
            created_at: when(delivery.createdAt),
          })),
        );
        if (page.nextCursor) print(`more: --cursor ${page.nextCursor}\n`);
        return;
      }
      case 'replay': {
        if (!eventId) throw new UsageError(`missing <event-id>\n${USAGE}`);
        await destinations.replay(devId, needId(), eventId);
        return print(`${eventId}: queued for delivery\n`);
      }
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await close();
  }
}
