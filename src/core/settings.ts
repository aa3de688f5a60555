// One settings schema. Every module declares the environment variables it reads as a group of
// settings (name, TypeBox type with its default and bounds, a one-line description); per-provider
// settings are declared once as templates (`<PROVIDER>_CLIENT_ID`) and expanded over the provider
// catalog. The composition root hands every declaration to `loadConfig`, which checks the whole
// environment in one pass and reports every bad value in one ConfigError; modules then read
// their typed, parsed settings from `config.settings`. This file is the only one that reads a raw
// environment record (the lint rule in eslint.config.js keeps it so).
import { type TSchema, Type } from 'typebox';

export type RawEnv = Readonly<Record<string, string | undefined>>;

/** A bad setting stops the boot; the message lists every problem found, one per line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  /** Each problem on its own (one per bad setting). */
  readonly problems: readonly string[];
  constructor(message: string | readonly string[]) {
    const problems = typeof message === 'string' ? [message] : message;
    super(
      problems.length === 1
        ? problems[0]!
        : `${problems.length} settings are invalid:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.problems = problems;
  }
}

/**
 * One environment variable. `schema` is its TypeBox type, with description, default and bounds:
 * for numbers and words the type of the parsed value (numbers are checked against it); where the
 * format is the point (a duration, `<count>/<seconds>`) the pattern of the text. `parse` turns the
 * raw value (undefined when unset) into the value the module uses, or throws a ConfigError whose
 * message names the variable.
 */
export type Setting<T> = {
  readonly schema: TSchema;
  readonly description: string;
  /** What `.env.example` shows as the value (the default, or an example); '' shows `NAME=`. */
  readonly example: string;
  /** Shown uncommented in `.env.example` (the settings most deployments look at first). */
  readonly active?: boolean;
  readonly parse: (raw: string | undefined, name: string) => T;
};

type Values<S extends Record<string, Setting<unknown>>> = { [K in keyof S]: ReturnType<S[K]['parse']> };

/** A module's settings: documented together (a block of `.env.example`) and built into one value. */
export type SettingsGroup<T = unknown> = {
  readonly kind: 'group';
  readonly id: string;
  /** Who reads these settings (the module path), for the documentation. */
  readonly owner: string;
  /** Comment lines above the block in `.env.example`. */
  readonly intro: readonly string[];
  readonly settings: Readonly<Record<string, Setting<unknown>>>;
  /** From the parsed values to what the module uses; may throw ConfigError (settings that disagree). */
  readonly build: (values: Readonly<Record<string, unknown>>) => T;
};

/** Settings every provider has, named `<PROVIDER>_<KEY>`, built per provider. */
export type ProviderSettingsGroup<T = unknown> = {
  readonly kind: 'provider';
  readonly id: string;
  readonly owner: string;
  readonly intro: readonly string[];
  readonly templates: Readonly<Record<string, Setting<unknown>>>;
  /** Settings one provider declares beyond the templates (their suffixes; free text). */
  readonly extra: (providerId: string) => readonly string[];
  readonly build: (
    values: Readonly<Record<string, unknown>>,
    providerId: string,
    extra: Readonly<Record<string, string | undefined>>,
  ) => T;
};

export type AnySettingsGroup = SettingsGroup | ProviderSettingsGroup;

export function defineSettings<S extends Record<string, Setting<unknown>>, T>(spec: {
  id: string;
  owner: string;
  intro?: readonly string[];
  settings: S;
  build: (values: Values<S>) => T;
}): SettingsGroup<T> {
  return {
    kind: 'group',
    id: spec.id,
    owner: spec.owner,
    intro: spec.intro ?? [],
    settings: spec.settings,
    build: (values) => spec.build(values as Values<S>),
  };
}

export function defineProviderSettings<S extends Record<string, Setting<unknown>>, T>(spec: {
  id: string;
  owner: string;
  intro?: readonly string[];
  templates: S;
  extra?: (providerId: string) => readonly string[];
  build: (values: Values<S>, providerId: string, extra: Readonly<Record<string, string | undefined>>) => T;
}): ProviderSettingsGroup<T> {
  return {
    kind: 'provider',
    id: spec.id,
    owner: spec.owner,
    intro: spec.intro ?? [],
    templates: spec.templates,
    extra: spec.extra ?? (() => []),
    build: (values, providerId, extra) => spec.build(values as Values<S>, providerId, extra),
  };
}

// ---- kinds of setting ----

const blank = (raw: string | undefined): raw is undefined => raw === undefined || raw.trim() === '';

type Common = { description: string; example?: string; active?: boolean };

/**
 * A number, checked against its TypeBox type (integer or not, bounds); `problem` is the wording
 * of the error (`NAME <problem>, got "<raw>"`).
 */
/** A number setting: its default (or none), bounds, and the problem text for a bad value. */
type NumberSpec<Default extends number | undefined> = Common & {
  default: Default;
  integer?: boolean;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  problem: string;
};

/**
 * What the setting's TypeBox type (`Type.Integer` or `Type.Number` with these bounds) accepts,
 * checked directly: TypeBox's value checker is some 300 modules to load at every start.
 */
function withinBounds(spec: NumberSpec<number | undefined>, value: number): boolean {
  if (spec.integer && !Number.isInteger(value)) return false;
  if (spec.minimum !== undefined && value < spec.minimum) return false;
  if (spec.exclusiveMinimum !== undefined && value <= spec.exclusiveMinimum) return false;
  return spec.maximum === undefined || value <= spec.maximum;
}

export function numberSetting(spec: NumberSpec<number>): Setting<number>;
export function numberSetting(spec: NumberSpec<number | undefined>): Setting<number | undefined>;
export function numberSetting(spec: NumberSpec<number | undefined>): Setting<number | undefined> {
  const bounds = {
    ...(spec.minimum === undefined ? {} : { minimum: spec.minimum }),
    ...(spec.exclusiveMinimum === undefined ? {} : { exclusiveMinimum: spec.exclusiveMinimum }),
    ...(spec.maximum === undefined ? {} : { maximum: spec.maximum }),
    description: spec.description,
    ...(spec.default === undefined ? {} : { default: spec.default }),
  };
  const schema = spec.integer ? Type.Integer(bounds) : Type.Number(bounds);
  return {
    schema,
    description: spec.description,
    example: spec.example ?? (spec.default === undefined ? '' : String(spec.default)),
    active: spec.active,
    parse(raw, name) {
      if (blank(raw)) return spec.default;
      const value = Number(raw.trim());
      if (!Number.isFinite(value) || !withinBounds(spec, value))
        throw new ConfigError(`${name} ${spec.problem}, got "${raw.trim()}"`);
      return value;
    },
  };
}

/** Free text (a name, a secret, a path); `check` returns the error wording for a bad value. */
export function textSetting(
  spec: Common & { default: string; check?: (value: string, name: string) => string | null },
): Setting<string>;
export function textSetting(
  spec: Common & { default: undefined; check?: (value: string, name: string) => string | null },
): Setting<string | undefined>;
export function textSetting(
  spec: Common & { default: string | undefined; check?: (value: string, name: string) => string | null },
): Setting<string | undefined> {
  return {
    schema: Type.String({
      description: spec.description,
      ...(spec.default === undefined ? {} : { default: spec.default }),
    }),
    description: spec.description,
    example: spec.example ?? spec.default ?? '',
    active: spec.active,
    parse(raw, name) {
      if (blank(raw)) return spec.default;
      const value = raw.trim();
      const problem = spec.check?.(value, name);
      if (problem) throw new ConfigError(problem);
      return value;
    },
  };
}

/** One of a few words (compared as given, after trimming). */
export function choiceSetting<const C extends string>(
  spec: Common & { choices: readonly C[]; default: C; problem?: string },
): Setting<C> {
  return {
    schema: Type.Union(
      spec.choices.map((choice) => Type.Literal(choice)),
      { description: spec.description, default: spec.default },
    ),
    description: spec.description,
    example: spec.example ?? spec.default,
    active: spec.active,
    parse(raw, name) {
      if (blank(raw)) return spec.default;
      const value = raw.trim();
      if (!(spec.choices as readonly string[]).includes(value))
        throw new ConfigError(
          `${name} ${spec.problem ?? `must be one of ${spec.choices.join(', ')}`}, got "${value}"`,
        );
      return value as C;
    },
  };
}

/**
 * A setting whose format no simple kind covers (a duration, `<count>/<seconds>`): its own parser,
 * still documented by a TypeBox type.
 */
export function customSetting<T>(
  spec: Common & { schema: TSchema; example: string; parse: (raw: string | undefined, name: string) => T },
): Setting<T> {
  return {
    schema: spec.schema,
    description: spec.description,
    example: spec.example,
    active: spec.active,
    parse: spec.parse,
  };
}

/** An absolute http(s) URL (a trailing slash kept as given). */
export function urlSetting(spec: Common & { default: undefined }): Setting<string | undefined> {
  return {
    schema: Type.String({ format: 'uri', description: spec.description }),
    description: spec.description,
    example: spec.example ?? '',
    active: spec.active,
    parse(raw, name) {
      if (blank(raw)) return undefined;
      const value = raw.trim();
      checkHttpUrl(value, name);
      return value;
    },
  };
}

export function checkHttpUrl(value: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must use http or https, got "${value}"`);
  }
  return url;
}

// ---- reading ----

type Outcome = { ok: true; value: unknown } | { ok: false; problems: string[] };

function collect(parse: () => unknown, problems: string[]): unknown {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
}

function readGroup(group: SettingsGroup, env: RawEnv): Outcome {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(group.settings))
    values[name] = collect(() => setting.parse(env[name], name), problems);
  if (problems.length > 0) return { ok: false, problems };
  const value = collect(() => group.build(values), problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

function readProviderGroup(group: ProviderSettingsGroup, env: RawEnv, providerId: string): Outcome {
  return readProviderGroupFrom(group, (name) => env[name], providerId);
}

function readProviderGroupFrom(
  group: ProviderSettingsGroup,
  env: (name: string) => string | undefined,
  providerId: string,
): Outcome {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(group.templates)) {
    const name = `${providerId}_${key}`;
    values[key] = collect(() => setting.parse(env(name), name), problems);
  }
  const extra: Record<string, string | undefined> = {};
  for (const key of group.extra(providerId)) {
    const raw = env(`${providerId}_${key}`)?.trim();
    extra[key] = raw === '' ? undefined : raw;
  }
  if (problems.length > 0) return { ok: false, problems };
  const value = collect(() => group.build(values, providerId, extra), problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

const unwrap = (outcome: Outcome): unknown => {
  if (!outcome.ok) throw new ConfigError(outcome.problems);
  return outcome.value;
};

/** One group's settings from an environment record (tools and tests; the service uses `config.settings`). */
export function readSettings<T>(group: SettingsGroup<T>, env: RawEnv): T {
  return unwrap(readGroup(group, env)) as T;
}

/** One provider's settings of a template group from an environment record. */
export function readProviderSettings<T>(group: ProviderSettingsGroup<T>, env: RawEnv, providerId: string): T {
  return unwrap(readProviderGroup(group, env, providerId)) as T;
}

/**
 * The parsed settings of this process. Each group is parsed once (at boot, by `check`, for every
 * declared group); a module built outside the composition root (a test) gets its group parsed on
 * first use, with the same errors.
 */
export type Settings = {
  get<T>(group: SettingsGroup<T>): T;
  forProvider<T>(group: ProviderSettingsGroup<T>, providerId: string): T;
  /** Every problem of these groups (expanded over the providers), in declaration order. */
  problems(groups: readonly AnySettingsGroup[], providerIds: readonly string[]): string[];
  /**
   * Per-provider values the operator stored (the dashboard), by variable name (`OURA_CLIENT_ID`):
   * a provider setting the environment leaves unset or blank takes its stored value; the
   * environment always wins. Replaces the previous set; provider groups are read again on next use.
   */
  useStored(values: RawEnv): void;
  /** Whether the environment itself sets this variable (then a stored value for it is not in effect). */
  inEnvironment(name: string): boolean;
  /** One provider's settings of a group as they would be with these stored values (nothing changes). */
  tryStored<T>(group: ProviderSettingsGroup<T>, providerId: string, values: RawEnv): T;
};

export function createSettings(env: RawEnv): Settings {
  const snapshot: RawEnv = { ...env };
  const groups = new Map<SettingsGroup, Outcome>();
  const providers = new Map<ProviderSettingsGroup, Map<string, Outcome>>();
  const outcomeOf = (group: SettingsGroup): Outcome => {
    let outcome = groups.get(group);
    if (!outcome) groups.set(group, (outcome = readGroup(group, snapshot)));
    return outcome;
  };
  let stored: RawEnv = {};
  const layered = (values: RawEnv) => (name: string) =>
    blank(snapshot[name]) ? (values[name] ?? snapshot[name]) : snapshot[name];
  const providerOutcomeOf = (group: ProviderSettingsGroup, providerId: string): Outcome => {
    let byProvider = providers.get(group);
    if (!byProvider) providers.set(group, (byProvider = new Map()));
    let outcome = byProvider.get(providerId);
    if (!outcome)
      byProvider.set(providerId, (outcome = readProviderGroupFrom(group, layered(stored), providerId)));
    return outcome;
  };
  return {
    get: <T>(group: SettingsGroup<T>) => unwrap(outcomeOf(group)) as T,
    forProvider: <T>(group: ProviderSettingsGroup<T>, providerId: string) =>
      unwrap(providerOutcomeOf(group, providerId)) as T,
    useStored(values) {
      stored = { ...values };
      providers.clear();
    },
    inEnvironment: (name) => !blank(snapshot[name]),
    tryStored: <T>(group: ProviderSettingsGroup<T>, providerId: string, values: RawEnv) =>
      unwrap(readProviderGroupFrom(group, layered(values), providerId)) as T,
    problems(list, providerIds) {
      const problems: string[] = [];
      for (const group of list) {
        const outcomes =
          group.kind === 'group'
            ? [outcomeOf(group)]
            : providerIds.map((providerId) => providerOutcomeOf(group, providerId));
        for (const outcome of outcomes) if (!outcome.ok) problems.push(...outcome.problems);
      }
      return problems;
    },
  };
}
