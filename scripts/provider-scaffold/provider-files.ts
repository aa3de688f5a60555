// What the scaffold writes under src/providers/<folder>/: a declaration that passes validation
// and stays off by default, a connector and data source over a small placeholder API (hosts
// under `.example`), one normalizer to the unified Daily and a MAPPING.md. The placeholder API
// is the one the generated fake speaks, so the generated path test runs from the first minute;
// every piece says what to replace it with.
import type { ProviderNames } from './names.ts';

export function providerFile(n: ProviderNames): string {
  return `import { remoteProvider } from '../../provider-kit/define.ts';
import { ${n.camel}Api } from './connector.ts';
import { ${n.camel}Fetchers } from './data-source.ts';

// Scaffolded by scripts/new-provider.ts. Every URL, scope and shape in this folder is a
// placeholder (hosts under \`.example\`) that test/fakes/${n.folder}.ts speaks too: replace them with
// the provider's documented facts, cite the documentation here, and switch \`enabledByDefault\`
// on once test/integration/connector-${n.folder}.test.ts passes without its \`todo\`.
export const ${n.camel} = remoteProvider({
  declaration: {
    id: '${n.id}',
    name: '${n.display}',
    icon: { initials: '${n.initials}', background: '#4B5563' },
    // \`oauth2_pkce\` when the provider takes a code challenge; \`sdk\` for on-device data.
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://${n.host}/oauth/authorize',
      tokenUrl: 'https://${n.host}/oauth/token',
      scopes: ['daily:read'],
      scopeSeparator: ' ',
      // Where the token endpoint wants the client credentials: \`body\` or \`basic\`.
      clientAuth: 'body',
      // The provider's stable account id: in the token answer, or \`{ from: 'userinfo', url, path }\`.
      accountId: { from: 'token', path: 'user_id' },
      revoke: { url: 'https://${n.host}/oauth/revoke', method: 'POST', token: { param: 'token', in: 'form' } },
    },
    // One fetcher per type listed here (data-source.ts): the compiler holds you to it.
    dataTypes: ['daily'],
    writesPlannedWorkouts: false,
    historyDays: null,
    // Off until an operator sets ${n.id}_ENABLED=true: nothing above is verified yet.
    enabledByDefault: false,
    deviceKind: 'app',
  },
  api: ${n.camel}Api,
  fetchers: ${n.camel}Fetchers,
  // The placeholder API pushes nothing, so \`api.poll\` asks it for changes. A provider that
  // pushes supplies NotificationHooks here instead (see src/providers/oura/connector.ts).
  notifications: null,
});
`;
}

export function connectorFile(n: ProviderNames): string {
  return `// How the ${n.display} API behaves, as data (placeholder facts from scripts/new-provider.ts: replace
// them with the documented ones and cite them): the app's request window, one user's share of
// it, how far and in what steps a backfill reaches. The placeholder API pushes nothing, so the
// framework polls \`GET /v1/changes?since=\` for the days that changed.
import type { ChangedData, ProviderApi } from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { ${n.id}_API, ${n.id}_CHUNK_DAYS } from './data-source.ts';

type Changes = { days?: unknown };

export const ${n.camel}Api: ProviderApi = {
  requestWindows: [{ requests: 3000, seconds: 3600 }],
  userShare: 0.1,
  backfillDays: 90,
  backfillChunkDays: ${n.id}_CHUNK_DAYS,
  // Add \`rateLimit(headers)\` when the provider reports its usage in headers (see
  // src/providers/strava/connector.ts), \`isScopeRefusal\`, \`onConnected\`… as it needs them.
  poll: {
    minutes: 15,
    async changes({ http, since }): Promise<ChangedData | null> {
      const body = await http.json<Changes>({
        url: \`\${${n.id}_API}/changes\`,
        query: { since: since.toISOString() },
      });
      const days = (Array.isArray(body?.days) ? (body.days as unknown[]) : [])
        .filter((day): day is string => typeof day === 'string' && isIsoDate(day))
        .sort();
      const first = days[0];
      const last = days[days.length - 1];
      if (!first || !last) return null;
      return { types: ['daily'], startDate: first, endDate: addDays(last, 1) };
    },
  },
};
`;
}

export function dataSourceFile(n: ProviderNames): string {
  return `// ${n.display} reads (the placeholder API of scripts/new-provider.ts: replace it with the documented
// one and cite it): \`GET /v1/daily\` with \`start_date\` inclusive and \`end_date\` exclusive, at
// most 30 days a request. The framework's HTTP client adds the user's token,
// retries, rate limits and budgets; a fetcher only asks and normalizes.
import type { TypeFetcher } from '../../provider-kit/api.ts';
import { dayChunks } from '../../provider-kit/pagination.ts';
import { type ${n.pascal}Day, normalize${n.pascal}Day } from './normalize/daily.ts';

export const ${n.id}_API = 'https://api.${n.host}/v1';
/** The most days one request may span. */
export const ${n.id}_CHUNK_DAYS = 30;

export const ${n.camel}Fetchers = {
  async *daily(args) {
    for (const range of dayChunks(args.startDate, args.endDate, ${n.id}_CHUNK_DAYS)) {
      const body = await args.http.json<{ data?: ${n.pascal}Day[] }>({
        url: \`\${${n.id}_API}/daily\`,
        query: { start_date: range.startDate, end_date: range.endDate },
      });
      yield { records: (body?.data ?? []).map(normalize${n.pascal}Day), raw: body };
    }
  },
} satisfies Record<string, TypeFetcher>;
`;
}

export function dailyNormalizerFile(n: ProviderNames): string {
  return `// ${n.display} daily summary -> Daily (the placeholder shape of scripts/new-provider.ts; MAPPING.md
// says what maps where). Fields the model has and the provider lacks are left out, never
// invented; the framework validates every record against the model before storing it.
import type { Daily } from '../../../model/daily.ts';
import { UploadType } from '../../../model/enums.ts';
import { dayBoundsOf, localizationOf } from '../../../provider-kit/normalize/normalize.ts';

/** One day as the placeholder API returns it. */
export type ${n.pascal}Day = {
  /** The user's local calendar day, \`YYYY-MM-DD\`. */
  date: string;
  /** Minutes east of UTC for that day. */
  utc_offset_minutes: number;
  steps: number | null;
  distance_meters: number | null;
  active_calories: number | null;
};

export function normalize${n.pascal}Day(day: ${n.pascal}Day): Daily {
  return {
    metadata: {
      ...dayBoundsOf(day.date, day.utc_offset_minutes),
      upload_type: UploadType.AUTOMATIC,
      timestamp_localization: localizationOf(day.utc_offset_minutes),
    },
    distance_data: { steps: day.steps, distance_meters: day.distance_meters },
    calories_data: { net_activity_calories: day.active_calories },
  };
}
`;
}

export function mappingFile(n: ProviderNames): string {
  return `# ${n.display} -> unified model

> Scaffolded by scripts/new-provider.ts: the rows below describe the placeholder API. Rewrite them
> from the provider's documentation as you write the normalizers, one section per unified type.

Normalizers: \`normalize/daily.ts\`. Sources: (the provider's documentation pages, with the date you
read them).

Conventions:

- A day is the user's local calendar day: \`start_time\` is local midnight at
  \`utc_offset_minutes\`, \`end_time\` the next one. \`timestamp_localization\` is 1 unless that
  offset is 0.

## Daily (one record per local day)

| unified field                          | ${n.display} field         | note                              |
| -------------------------------------- | -------------------------- | --------------------------------- |
| metadata.start_time, metadata.end_time | \`date\`, \`utc_offset_minutes\` | local midnight to local midnight |
| metadata.upload_type                   | 1 (automatic)              |                                   |
| distance_data.steps                    | \`steps\`                    |                                   |
| distance_data.distance_meters          | \`distance_meters\`          |                                   |
| calories_data.net_activity_calories    | \`active_calories\`          | kcal                              |
| **not filled**                         | everything else            | the placeholder API has no more   |
`;
}
