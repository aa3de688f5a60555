// The settings of a PostgreSQL destination (kinds/postgresql.ts): the API's schema of them, their
// parsing (each bad setting named; the host checked against the SSRF rules and the service's own
// databases) and their view without the password. Separate from connecting and writing: this is
// all that runs when a destination is created or changed, before any connection.
import Type from 'typebox';
import { invalidParameter } from '../../../core/errors.ts';
import { addressesOf, checkHostAllowed } from '../destination-policy.ts';
import { ownDatabaseReason } from '../own-database.ts';
import {
  type KindPolicy,
  MAX_PEM_CHARS,
  pemSetting,
  type SettingsObject,
  settingsChecker,
  stringSetting,
} from './kind.ts';
import { canonicalUrl, parsePostgresqlUrl } from './postgresql-url.ts';

/** `url` is the canonical URL (postgresql-url.ts), password included: the settings are stored sealed. */
export type PostgresqlSettings = {
  url: string;
  schema: string;
  /** PEM text: the certificates the server's must chain to (sslmode verify-ca / verify-full). */
  tls_ca?: string;
  /** PEM text: a client certificate and its unencrypted key, for servers that ask for one. */
  tls_cert?: string;
  tls_key?: string;
};

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const SCHEMA_HINT = 'expected a lower-case SQL identifier (letters, digits, _; at most 63)';
const Pem = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: MAX_PEM_CHARS, description }));

/** The settings of a postgresql destination as the API takes them (validation, OpenAPI and packages/client). */
export const PostgresqlSettingsSchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'postgres://user:password@host:5432/database (sslmode in the query string)',
      examples: ['postgres://tributary:secret@db.example.com:5432/analytics'],
    }),
    schema: Type.Optional(
      Type.String({
        pattern: SCHEMA_NAME.source,
        minLength: 1,
        maxLength: 63,
        description: 'Schema of the tables; default tributary',
      }),
    ),
    tls_ca: Pem("PEM certificates the server's certificate must chain to"),
    tls_cert: Pem('PEM client certificate (with tls_key)'),
    tls_key: Pem('PEM unencrypted private key of tls_cert'),
  },
  {
    additionalProperties: false,
    title: 'PostgresqlSettings',
    description: 'kind postgresql: one row per event',
  },
);

const checkSettings = settingsChecker(PostgresqlSettingsSchema, { hints: { schema: SCHEMA_HINT } });

export async function parsePostgresqlSettings(
  input: unknown,
  policy: KindPolicy,
): Promise<PostgresqlSettings> {
  const settings = checkSettings(input);
  const raw = stringSetting(settings, 'url', { required: true })!;
  const target = parsePostgresqlUrl(raw);
  const schema =
    stringSetting(settings, 'schema', {
      pattern: SCHEMA_NAME,
      hint: SCHEMA_HINT,
    }) ?? 'tributary';
  const tlsCa = pemSetting(settings, 'tls_ca', 'certificates');
  const tlsCert = pemSetting(settings, 'tls_cert', 'certificates');
  const tlsKey = pemSetting(settings, 'tls_key', 'private key');
  if (Boolean(tlsCert) !== Boolean(tlsKey))
    throw invalidParameter(
      tlsCert ? 'settings.tls_key' : 'settings.tls_cert',
      'tls_cert and tls_key go together',
    );
  if ((target.sslmode === 'verify-ca' || target.sslmode === 'verify-full') && !tlsCa)
    throw invalidParameter('settings.tls_ca', `required with sslmode=${target.sslmode}`);
  const blocked = await checkHostAllowed(target.host, policy.environment, policy.resolve);
  if (blocked) throw invalidParameter('settings.url', blocked);
  // (A name that does not resolve now is not the service's database now; connecting checks again.)
  const addresses = await addressesOf(target.host, policy.resolve);
  const own = await ownDatabaseReason({ addresses, ...target }, policy.ownDatabases, policy.resolve);
  if (own) throw invalidParameter('settings.url', own);
  return {
    url: canonicalUrl(target, 'include'),
    schema,
    ...(tlsCa ? { tls_ca: tlsCa } : {}),
    ...(tlsCert && tlsKey ? { tls_cert: tlsCert, tls_key: tlsKey } : {}),
  };
}

export function viewPostgresqlSettings(settings: PostgresqlSettings): SettingsObject {
  let url: string;
  try {
    url = canonicalUrl(parsePostgresqlUrl(settings.url), 'mask');
  } catch {
    url = '(refused: change it)';
  }
  return {
    url,
    schema: settings.schema,
    ...(settings.tls_ca ? { tls_ca: true } : {}),
    ...(settings.tls_cert ? { tls_cert: true } : {}),
  };
}
