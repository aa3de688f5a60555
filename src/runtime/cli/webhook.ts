import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import { wireDateTime } from '../../model/time.ts';
import { openContext } from './session.ts';
import { print, printJson, printTable, UsageError } from './output.ts';

export const USAGE = `usage:
  tributary webhook get <dev-id> [--json]
  tributary webhook set <dev-id> --url URL [--disable] [--json]    (setting a URL enables and replays held events)
  tributary webhook set <dev-id> --enable|--disable [--json]
  tributary webhook rotate-secret <dev-id> [--json]                 (prints the new secret once)
  tributary webhook test <dev-id> [--json]                          (queues a healthcheck event)
  tributary webhook deliveries <dev-id> [--status S] [--type T] [--user-id U] [--since ISO] [--limit N] [--cursor C] [--json]
  tributary webhook replay <dev-id> <event-id>`;

const when = (at: Date | null) => (at ? wireDateTime(at) : null);

function printFields(fields: Record<string, unknown>) {
  const width = Math.max(...Object.keys(fields).map((key) => key.length));
  for (const [key, value] of Object.entries(fields)) print(`${key.padEnd(width)}  ${value ?? '-'}\n`);
}

export async function webhookCommand(config: Config, args: string[]) {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      enable: { type: 'boolean', default: false },
      disable: { type: 'boolean', default: false },
      status: { type: 'string' },
      type: { type: 'string' },
      'user-id': { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [devId, eventId] = positionals;
  if (!action || !devId) throw new UsageError(USAGE);

  const { ctx, close } = await openContext(config);
  try {
    const webhooks = ctx.webhooks;
    const show = async (extra: Record<string, unknown> = {}) => {
      const state = await webhooks.getDestination(devId);
      const fields = {
        dev_id: devId,
        url: state.url,
        status: state.status,
        recent_failures: state.recentFailures,
        consecutive_failures: state.consecutiveFailures,
        failing_since: when(state.failingSince),
        disabled_at: when(state.disabledAt),
        last_success_at: when(state.lastSuccessAt),
        last_failure_at: when(state.lastFailureAt),
        held_events: state.heldEvents,
        previous_secret_expires_at: when(state.previousSecretExpiresAt),
        ...extra,
      };
      if (values.json) printJson(fields);
      else printFields(fields);
    };

    switch (action) {
      case 'get':
        return await show();
      case 'set': {
        if (values.enable && values.disable)
          throw new UsageError(`pass at most one of --enable, --disable\n${USAGE}`);
        if (!values.url && !values.enable && !values.disable)
          throw new UsageError(`--url, --enable or --disable is required\n${USAGE}`);
        const result = await webhooks.setDestination(devId, {
          ...(values.url ? { url: values.url } : {}),
          ...(values.enable || values.disable ? { enabled: values.enable } : {}),
        });
        return await show({ replayed: result.replayed });
      }
      case 'rotate-secret': {
        const rotated = await webhooks.rotateSecret(devId);
        const output = {
          dev_id: devId,
          secret: rotated.secret,
          previous_secret_expires_at: wireDateTime(rotated.previousSecretExpiresAt),
        };
        if (values.json) printJson(output);
        else printFields(output);
        return;
      }
      case 'test': {
        const { eventId: queued } = await webhooks.sendTest(devId);
        if (values.json) printJson({ status: 'queued', event_id: queued });
        else print(`queued healthcheck ${queued} (delivered by a running worker)\n`);
        return;
      }
      case 'deliveries': {
        const limit = values.limit === undefined ? undefined : Number(values.limit);
        const page = await webhooks.listDeliveries(devId, {
          ...(values.status ? { status: values.status } : {}),
          ...(values.type ? { type: values.type } : {}),
          ...(values['user-id'] ? { userId: values['user-id'] } : {}),
          ...(values.since ? { since: values.since } : {}),
          ...(values.cursor ? { cursor: values.cursor } : {}),
          ...(limit === undefined ? {} : { limit }),
        });
        if (values.json) return printJson({ deliveries: page.deliveries, next_cursor: page.nextCursor });
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
        return;
      }
      case 'replay': {
        if (!eventId) throw new UsageError(`missing <event-id>\n${USAGE}`);
        await webhooks.replay(devId, eventId);
        print(`${eventId}: queued for delivery\n`);
        return;
      }
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await close();
  }
}
