// The names a new provider goes by in the files the scaffold writes, checked before anything
// is written: the wire id (`ACME_HEALTH`), the folder (`acme_health`), the export (`acmeHealth`).

export type ProviderNames = {
  /** Wire resource id, and the prefix of its settings (`<ID>_CLIENT_ID`, `<ID>_ENABLED`). */
  id: string;
  /** src/providers/<folder>/, test/fakes/<folder>.ts, test/integration/connector-<folder>.test.ts. */
  folder: string;
  /** The provider's export (`acmeHealth`) and the prefix of its other exports. */
  camel: string;
  /** Type names (`AcmeHealthFake`). */
  pascal: string;
  /** What users see until it is changed in the declaration (`Acme Health`). */
  display: string;
  initials: string;
  /** Placeholder host under the reserved `.example` domain: never resolves, so never called by mistake. */
  host: string;
};

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false ' +
    'finally for function if import in instanceof new null return super switch this throw true try ' +
    'typeof var void while with yield let static implements interface package private protected ' +
    'public await arguments eval'
  ).split(' '),
);

export function providerNames(id: string, folder: string): ProviderNames {
  if (!/^[A-Z][A-Z0-9_]*$/.test(id)) {
    throw new Error(
      `the id "${id}" must be upper-case letters, digits and underscores, starting with a letter`,
    );
  }
  if (!/^[a-z][a-z0-9_]*$/.test(folder)) {
    throw new Error(
      `the folder "${folder}" must be lower-case letters, digits and underscores, starting with a letter`,
    );
  }
  const words = folder.split('_').filter((word) => word !== '');
  const capitalised = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  const camel = (words[0] ?? '') + capitalised.slice(1).join('');
  if (RESERVED.has(camel)) throw new Error(`the folder "${folder}" would export a reserved word (${camel})`);
  return {
    id,
    folder,
    camel,
    pascal: capitalised.join(''),
    display: capitalised.join(' '),
    initials: id.replace(/[^A-Z0-9]/g, '').slice(0, 2),
    host: `${words.join('-')}.example`,
  };
}
