// Payment for lab orders. An order is authorised while it is being created; only once the order is
// stored is the authorisation captured, and if storing fails it is voided, so a failed request never
// leaves a charge behind (the contract: a failed authorisation is a 402 and creates nothing;
// docs/wire-contract.md#statuses-and-transitions).
//
// The gateway is an interface so a real processor can replace the sandbox one without touching the
// order service. Every call carries an idempotency key: a retried request authorises once.

import { createHash } from 'node:crypto';
import type { CurrencyCode } from './catalog.ts';
import { CURRENCY } from './catalog.ts';

/** Why an authorisation was refused; the 402 problem's `category`. */
export const DECLINE_CATEGORIES = [
  'payment_failed',
  'insufficient_funds',
  'expired_payment_method',
  'limit_exceeded',
  'processing_error',
  'unsupported_currency',
] as const;
export type DeclineCategory = (typeof DECLINE_CATEGORIES)[number];

/** The developer's payment method on file, as an opaque token issued by the gateway. */
export interface PaymentDetails {
  payment_method: string;
}

export interface AuthorizeRequest {
  amountCents: number;
  currency: CurrencyCode;
  payment: PaymentDetails;
  /** Same key and same request: the first authorisation is returned, nothing new is held. */
  idempotencyKey: string;
}

export interface Authorization {
  status: 'authorized';
  authorization_id: string;
  amount_cents: number;
  currency: CurrencyCode;
}

export interface Decline {
  status: 'declined';
  category: DeclineCategory;
  /** True when the same request may succeed later unchanged (a processor hiccup, not a refusal). */
  retryable: boolean;
  message: string;
}

export type AuthorizeResult = Authorization | Decline;

export type CaptureResult =
  | { status: 'captured'; capture_id: string; authorization_id: string; amount_cents: number }
  | { status: 'failed'; reason: 'unknown_authorization' | 'authorization_voided' };

export type VoidResult =
  | { status: 'voided'; authorization_id: string }
  | { status: 'failed'; reason: 'unknown_authorization' | 'already_captured' };

export interface PaymentGateway {
  authorize(request: AuthorizeRequest): Promise<AuthorizeResult>;
  /** Captures the full authorised amount. Capturing twice returns the first capture. */
  capture(authorizationId: string): Promise<CaptureResult>;
  /** Releases the hold. Voiding twice is harmless; a captured payment cannot be voided. */
  void(authorizationId: string): Promise<VoidResult>;
}

/** Reusing an idempotency key for a different charge is a bug in the caller, not a decline. */
export class PaymentIdempotencyConflictError extends Error {
  override name = 'PaymentIdempotencyConflictError';
}

/**
 * Documented sandbox test values. A payment method token picks the outcome; any token not listed
 * here is approved. Amounts above `SANDBOX_AUTHORIZATION_LIMIT_CENTS` are declined whatever the
 * token, which lets a developer trigger a 402 from the order body alone (a large quantity).
 */
export const SANDBOX_PAYMENT_METHODS = {
  approve: 'pm_sandbox_approve',
  decline: 'pm_sandbox_decline',
  insufficientFunds: 'pm_sandbox_insufficient_funds',
  expired: 'pm_sandbox_expired',
  processingError: 'pm_sandbox_processing_error',
} as const;

/** 10,000.00 in the order's currency. */
export const SANDBOX_AUTHORIZATION_LIMIT_CENTS = 1_000_000;

const TOKEN_DECLINES: Readonly<Record<string, Omit<Decline, 'status'>>> = {
  [SANDBOX_PAYMENT_METHODS.decline]: {
    category: 'payment_failed',
    retryable: false,
    message: 'The payment method was declined.',
  },
  [SANDBOX_PAYMENT_METHODS.insufficientFunds]: {
    category: 'insufficient_funds',
    retryable: false,
    message: 'The payment method has insufficient funds.',
  },
  [SANDBOX_PAYMENT_METHODS.expired]: {
    category: 'expired_payment_method',
    retryable: false,
    message: 'The payment method has expired.',
  },
  [SANDBOX_PAYMENT_METHODS.processingError]: {
    category: 'processing_error',
    retryable: true,
    message: 'The payment processor could not be reached; retrying is safe.',
  },
};

const SUPPORTED_CURRENCIES: readonly CurrencyCode[] = [CURRENCY.USD, CURRENCY.EUR, CURRENCY.GBP];

/** The sandbox's verdict for a request, with no state involved: same input, same answer. */
export function sandboxDecision(request: Omit<AuthorizeRequest, 'idempotencyKey'>): Decline | undefined {
  if (!SUPPORTED_CURRENCIES.includes(request.currency)) {
    return {
      status: 'declined',
      category: 'unsupported_currency',
      retryable: false,
      message: `Currency ${request.currency} is not supported.`,
    };
  }
  if (request.amountCents > SANDBOX_AUTHORIZATION_LIMIT_CENTS) {
    return {
      status: 'declined',
      category: 'limit_exceeded',
      retryable: false,
      message: `The amount exceeds the sandbox limit of ${SANDBOX_AUTHORIZATION_LIMIT_CENTS} cents.`,
    };
  }
  const decline = TOKEN_DECLINES[request.payment.payment_method];
  return decline ? { status: 'declined', ...decline } : undefined;
}

interface LedgerEntry {
  authorization: Authorization;
  fingerprint: string;
  state: 'authorized' | 'captured' | 'voided';
}

/** What the sandbox may read back about an authorisation it issued before this process started. */
export type RecalledAuthorization = {
  amount_cents: number;
  currency: CurrencyCode;
  payment_method: string;
  state: LedgerEntry['state'];
};

/**
 * A deterministic stand-in for a processor. Ids are derived from the idempotency key, so replays
 * get the same ids. The ledger lives in memory, as it would inside a real processor. A real
 * processor outlives our process, though, and a sweeper that settles a crashed request's
 * authorisation after a restart must find it there: `recall` plays that part, reading back an
 * authorisation this process never saw (the service passes the durable payment record).
 */
export class SandboxPaymentGateway implements PaymentGateway {
  readonly #ledger = new Map<string, LedgerEntry>();
  readonly #recall: ((authorizationId: string) => Promise<RecalledAuthorization | undefined>) | undefined;

  constructor(
    options: { recall?: (authorizationId: string) => Promise<RecalledAuthorization | undefined> } = {},
  ) {
    this.#recall = options.recall;
  }

  async #entry(authorizationId: string): Promise<LedgerEntry | undefined> {
    const known = this.#ledger.get(authorizationId);
    if (known || !this.#recall || !authorizationId.startsWith('sbx_auth_')) return known;
    const recalled = await this.#recall(authorizationId);
    if (!recalled) return undefined;
    // Another call may have recalled it meanwhile; the first entry stays authoritative.
    const existing = this.#ledger.get(authorizationId);
    if (existing) return existing;
    const entry: LedgerEntry = {
      authorization: {
        status: 'authorized',
        authorization_id: authorizationId,
        amount_cents: recalled.amount_cents,
        currency: recalled.currency,
      },
      fingerprint: `${recalled.amount_cents}|${recalled.currency}|${recalled.payment_method}`,
      state: recalled.state,
    };
    this.#ledger.set(authorizationId, entry);
    return entry;
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    if (!Number.isSafeInteger(request.amountCents) || request.amountCents <= 0) {
      throw new RangeError(`amountCents must be a positive integer, got ${request.amountCents}`);
    }
    const authorizationId = `sbx_auth_${digest(request.idempotencyKey)}`;
    const fingerprint = `${request.amountCents}|${request.currency}|${request.payment.payment_method}`;
    const existing = this.#ledger.get(authorizationId);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        throw new PaymentIdempotencyConflictError('idempotency key reused for a different authorisation');
      }
      return existing.authorization;
    }
    const decline = sandboxDecision(request);
    if (decline) return decline;
    const authorization: Authorization = {
      status: 'authorized',
      authorization_id: authorizationId,
      amount_cents: request.amountCents,
      currency: request.currency,
    };
    this.#ledger.set(authorizationId, { authorization, fingerprint, state: 'authorized' });
    return authorization;
  }

  async capture(authorizationId: string): Promise<CaptureResult> {
    const entry = await this.#entry(authorizationId);
    if (!entry) return { status: 'failed', reason: 'unknown_authorization' };
    if (entry.state === 'voided') return { status: 'failed', reason: 'authorization_voided' };
    entry.state = 'captured';
    return {
      status: 'captured',
      capture_id: authorizationId.replace('sbx_auth_', 'sbx_cap_'),
      authorization_id: authorizationId,
      amount_cents: entry.authorization.amount_cents,
    };
  }

  async void(authorizationId: string): Promise<VoidResult> {
    const entry = await this.#entry(authorizationId);
    if (!entry) return { status: 'failed', reason: 'unknown_authorization' };
    if (entry.state === 'captured') return { status: 'failed', reason: 'already_captured' };
    entry.state = 'voided';
    return { status: 'voided', authorization_id: authorizationId };
  }

  /** Money currently held or taken: what a test asserts to prove "nothing charged". */
  heldOrCapturedCents(): number {
    let total = 0;
    for (const entry of this.#ledger.values()) {
      if (entry.state !== 'voided') total += entry.authorization.amount_cents;
    }
    return total;
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 24);
}
