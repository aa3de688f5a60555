import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import { AppError } from '../../core/errors.ts';
import { findConnectionForDeveloper, toWireUser } from '../../features/connections/service.ts';
import { type ConsentRequest, decideConsent, newSandboxAccount } from '../../providers/sandbox/consent.ts';
import { sandbox } from '../../providers/sandbox/provider.ts';
import { openContext } from './session.ts';
import { print, printJson, printTable, UsageError } from './output.ts';

export const USAGE = `usage:
  tributary sandbox connect --dev-id D [--reference-id R] [--account A] [--language L] [--deny] [--json]
  tributary sandbox env [--json]

\`env\` prints the sandbox developer \`tributary serve\` created (DATA_DIR/sandbox-credentials.json)
and the API's address as shell variables, for \`eval "$(npx tributary sandbox env)"\`: API, DEV,
KEY and SECRET (the signing secret it was created with).

Runs the sandbox provider's whole connect flow without a browser, through the same code as the
hosted pages: auth link, consent (approved, or denied with --deny), OAuth callback. Reuse
--account to reconnect the same sandbox account (the old user is replaced: user_reauth).`;

/** Single quotes keep every character as it is; a quote inside is closed, escaped and reopened. */
const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

function printSandboxEnv(config: Config, args: string[]) {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  const file = join(config.dataDir, 'sandbox-credentials.json');
  let saved: Record<string, unknown>;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    throw new AppError(
      'not_found',
      `no ${file}: \`tributary serve\` writes it when it creates the sandbox developer (embedded storage, no developer yet)`,
    );
  }
  const variables = {
    API: config.publicUrl,
    DEV: String(saved.dev_id),
    KEY: String(saved.api_key),
    SECRET: String(saved.webhook_secret),
  };
  if (values.json) return printJson(variables);
  for (const [name, value] of Object.entries(variables)) print(`export ${name}=${shellQuote(value)}\n`);
}

export async function sandboxCommand(config: Config, args: string[]) {
  const [action, ...rest] = args;
  if (action === 'env') return printSandboxEnv(config, rest);
  if (action !== 'connect') throw new UsageError(USAGE);
  const { values } = parseArgs({
    args: rest,
    options: {
      'dev-id': { type: 'string' },
      'reference-id': { type: 'string' },
      account: { type: 'string' },
      language: { type: 'string' },
      deny: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const devId = values['dev-id'];
  if (!devId) throw new UsageError(`--dev-id is required\n${USAGE}`);

  const { ctx, close } = await openContext(config);
  try {
    const developer = await ctx.developers.get(devId);
    const link = await ctx.connecting.createAuthLink({
      developerId: developer.id,
      resource: sandbox.declaration.id,
      referenceId: values['reference-id'],
      language: values.language,
    });
    // What the browser would do: open the consent page, press a button, follow the redirect.
    const consent = Object.fromEntries(new URL(link.authUrl).searchParams) as ConsentRequest;
    const runtime = { config: ctx.config, clock: ctx.clock, secretBox: ctx.secretBox };
    const account = values.account ?? newSandboxAccount();
    const callback = new URL(decideConsent(runtime, consent, values.deny ? 'deny' : 'approve', account));
    const providerParam = callback.pathname.split('/').pop() ?? '';
    const outcome = await ctx.connecting.completeCallback(
      providerParam,
      Object.fromEntries(callback.searchParams),
    );

    if (outcome.kind !== 'redirect' || outcome.outcome === 'failure') {
      const reason = outcome.reason ?? 'unknown';
      const output = {
        status: 'error',
        user_id: link.userId,
        provider: link.provider,
        reason,
        redirect_url: outcome.kind === 'redirect' ? outcome.location : null,
      };
      if (values.json) printJson(output);
      // Exit status 1 (through the CLI's error path) so scripts can tell.
      throw new AppError('unprocessable', `not connected: ${reason}`);
    }
    const user = await findConnectionForDeveloper(ctx.db, developer.id, outcome.userId);
    const output = {
      ...toWireUser(user),
      is_authenticated: user.status === 'active',
      sandbox_account: account,
      redirect_url: outcome.location,
    };
    if (values.json) printJson(output);
    else
      printTable([
        { user_id: output.user_id, provider: output.provider, reference_id: output.reference_id, account },
      ]);
  } finally {
    await close();
  }
}
