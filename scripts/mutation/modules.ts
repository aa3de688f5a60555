// The critical modules under mutation testing, each with the test files that cover it. A mutant
// runs only its module's tests (the whole suite takes minutes, far too slow per mutant), so each
// list must be complete for its module: a test elsewhere that would kill a mutant does not count.
// Every listed file runs on embedded PGlite in seconds.

export type MutationModule = {
  /** Short name: the report lands in reports/mutation/<name>/. */
  name: string;
  /** What a mutant may change. */
  mutate: string[];
  /** The test files that must catch it. */
  tests: string[];
};

export const MUTATION_MODULES: MutationModule[] = [
  {
    name: 'auth-and-keys',
    mutate: ['src/http/auth.ts', 'src/features/developers/api-keys.ts'],
    tests: ['test/integration/auth.test.ts', 'test/unit/platform-units.test.ts'],
  },
  {
    name: 'rate-limits',
    mutate: ['src/features/data/rate-limit.ts'],
    tests: ['test/unit/rate-limit.test.ts', 'test/integration/rate-limit-budget.test.ts'],
  },
  {
    name: 'idempotency',
    mutate: ['src/features/orders/idempotency.ts'],
    tests: ['test/integration/orders-idempotency.test.ts'],
  },
  {
    name: 'signing',
    mutate: ['src/features/delivery/signing.ts'],
    tests: ['test/unit/webhook-signing.test.ts', 'test/unit/webhook-signing-verify.test.ts'],
  },
  {
    name: 'oauth-and-pkce',
    mutate: ['src/provider-access/oauth.ts', 'src/providers/sandbox/grant.ts'],
    tests: ['test/integration/oauth-client.test.ts', 'test/integration/oauth-pkce.test.ts'],
  },
  {
    name: 'token-store',
    mutate: ['src/provider-access/tokens.ts', 'src/provider-access/token-store.ts'],
    tests: ['test/integration/connector-tokens.test.ts', 'test/integration/token-manager.test.ts'],
  },
  {
    name: 'deletion',
    mutate: ['src/features/connecting/lifecycle.ts'],
    tests: ['test/integration/connection-lifecycle.test.ts'],
  },
  {
    name: 'webhook-delivery-state',
    mutate: ['src/features/delivery/retry-policy.ts', 'src/features/delivery/destination-policy.ts'],
    tests: [
      'test/unit/webhook-policy.test.ts',
      'test/unit/webhook-policy-edges.test.ts',
      'test/integration/webhook-destination-rebinding.test.ts',
    ],
  },
];
