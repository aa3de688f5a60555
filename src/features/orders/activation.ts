// Kit activation (`ActivationContextDTO`, docs/wire-contract.md#endpoints-and-objects): the test
// taker presents the kit id printed on the kit, says who they are and where the sample was taken;
// the item gets its test_taker_id and moves to results.kit_activated through the common lifecycle
// function.
import { AppError, conflict, notFound } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import { findDeveloper } from '../developers/repo.ts';
import type { JsonRecord } from './domain/field-rules.ts';
import { FieldIssues, isRecord, readString } from './domain/field-rules.ts';
import { readOptionalAddress, readRecipient } from './domain/order-parties.ts';
import { orderAcceptsResultsEvents } from './domain/statuses.ts';
import { normalizeKitId } from './ids.ts';
import type { LifecycleDeps } from './lifecycle.ts';
import { applyStatusEvent, assignTestTaker } from './lifecycle.ts';
import type { ItemRow, OrderRow } from './repo.ts';
import * as repo from './repo.ts';
import type { ActivationRecord, TestTakerRecord } from './tables.ts';

export type ActivationResult = { kit_id: string; message: string; success: true; test_taker_id: string };

/** Who may activate: anyone holding the kit id, or (with credentials) only the owning developer. */
export type ActivationActor = { developerId: string } | { anonymous: true };

function readKitId(body: JsonRecord): string {
  const raw = body.supplier_kit_id ?? body.kit_id;
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new AppError('bad_request', 'missing supplier_kit_id: required field', {
      extensions: {
        invalid_fields: [
          { field: 'supplier_kit_id', tag: 'required', value: '', message: 'supplier_kit_id is required' },
        ],
      },
    });
  }
  const kitId = normalizeKitId(raw);
  // A malformed id cannot name a kit; saying "not found" rather than "malformed" tells a guesser nothing.
  if (!kitId) throw notFound(`no kit "${raw.trim().slice(0, 40)}"`);
  return kitId;
}

/** A suspended developer's kits cannot be activated; the answer does not say why. */
async function ownerSuspended(db: Db, developerId: string): Promise<boolean> {
  return (await findDeveloper(db, developerId))?.status !== 'active';
}

const unavailable = () =>
  new AppError('forbidden', 'kit activation is not available right now', {
    extensions: { reason: 'unavailable' },
  });

function alreadyActivated(kitId: string) {
  return conflict(`kit ${kitId} has already been activated`, { extensions: { reason: 'already_activated' } });
}

/** Validates the form against the order: the recipient's names stand in when the form omits them. */
function readActivation(
  body: JsonRecord,
  order: OrderRow,
  now: Date,
): { testTaker: TestTakerRecord; activation: ActivationRecord } {
  const issues = new FieldIssues();
  const address = readOptionalAddress(issues, body, 'address');
  if (body.address === undefined || body.address === null)
    issues.add('address', 'required', undefined, 'address is required');
  let collectionDate = readString(issues, body, 'collection_date', 'collection_date', {
    required: false,
    maxLength: 40,
  });
  if (collectionDate !== undefined) {
    const parsed = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(
      collectionDate,
    )
      ? new Date(collectionDate)
      : undefined;
    if (!parsed || Number.isNaN(parsed.getTime())) {
      issues.add(
        'collection_date',
        'date',
        collectionDate,
        'collection_date must be RFC 3339 (or YYYY-MM-DD)',
      );
    } else if (parsed.getTime() > now.getTime() + 86_400_000) {
      issues.add('collection_date', 'past_date', collectionDate, 'collection_date may not be in the future');
    } else {
      collectionDate = parsed.toISOString();
    }
  }
  const given = isRecord(body.recipient) ? body.recipient : undefined;
  let testTaker: TestTakerRecord | undefined;
  if (body.recipient !== undefined && body.recipient !== null) {
    const merged = given
      ? { first_name: order.recipient.first_name, last_name: order.recipient.last_name, ...given }
      : body.recipient;
    const recipient = readRecipient(issues, merged, 'recipient', now);
    if (recipient) {
      testTaker = {
        first_name: recipient.first_name,
        last_name: recipient.last_name,
        email: recipient.email,
        phone_number: recipient.phone_number,
        date_of_birth: recipient.date_of_birth,
        gender_at_birth: recipient.gender_at_birth,
      };
    }
  }
  if (!issues.isEmpty) {
    const first = issues.list[0];
    throw new AppError('bad_request', `invalid ${first?.field}: ${first?.message}`, {
      extensions: { invalid_fields: issues.list },
    });
  }
  const r = order.recipient;
  return {
    // No recipient block: the kit is activated for the person it was sent to.
    testTaker: testTaker ?? {
      first_name: r.first_name,
      last_name: r.last_name,
      email: r.email,
      phone_number: r.phone_number,
      date_of_birth: r.date_of_birth,
      gender_at_birth: r.gender_at_birth,
    },
    activation: { address: address ?? null, collection_date: collectionDate ?? null },
  };
}

export async function activateKit(
  deps: LifecycleDeps & { db: Db },
  body: unknown,
  actor: ActivationActor,
): Promise<ActivationResult> {
  if (!isRecord(body)) throw new AppError('bad_request', 'invalid body: expected a JSON object');
  const kitId = readKitId(body);
  const found = await repo.findItemByKit(deps.db, kitId);
  if (!found || ('developerId' in actor && found.developer_id !== actor.developerId))
    throw notFound(`no kit "${kitId}"`);
  if (await ownerSuspended(deps.db, found.developer_id)) throw unavailable();
  if (found.test_taker_id) throw alreadyActivated(kitId);

  return deps.db.transaction().execute(async (trx) => {
    const order = await repo.lockOrder(trx, found.order_id);
    const [item] = (await repo.itemsOf(trx, [found.order_id])).filter(
      (candidate) => candidate.id === found.id,
    ) as [ItemRow?];
    if (!order || !item) throw notFound(`no kit "${kitId}"`);
    // Re-checked under the order's lock: of two simultaneous activations exactly one wins.
    if (item.test_taker_id) throw alreadyActivated(kitId);
    if (!orderAcceptsResultsEvents(order.status)) {
      throw conflict(`kit ${kitId} cannot be activated while its order is ${order.status}`, {
        extensions: { reason: 'order_not_ready' },
      });
    }
    const now = deps.clock.now();
    const { testTaker, activation } = readActivation(body, order, now);
    const activated = await assignTestTaker(trx, item, order, { testTaker, activation, now });
    await applyStatusEvent(deps, trx, {
      orderId: order.id,
      orderItemId: item.id,
      event: 'kit_activated',
      source: 'activation',
    });
    return {
      kit_id: kitId,
      message: 'Kit activated. You can now collect your sample and send it to the lab.',
      success: true as const,
      test_taker_id: activated.test_taker_id as string,
    };
  });
}

/** For the hosted page: is there such a kit, and is it still waiting for activation? */
export async function kitState(
  db: Db,
  rawKitId: string,
): Promise<'unknown' | 'activated' | 'ready' | 'unavailable'> {
  const kitId = normalizeKitId(rawKitId);
  if (!kitId) return 'unknown';
  const item = await repo.findItemByKit(db, kitId);
  if (!item) return 'unknown';
  if (await ownerSuspended(db, item.developer_id)) return 'unavailable';
  return item.test_taker_id ? 'activated' : 'ready';
}
