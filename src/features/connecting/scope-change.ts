// What changed between two grants of scopes (a connection's stored scopes are comma or space
// separated, as the provider gave them): the scopes added and removed, sorted, for a
// `permission_change` event. Nothing changed: null, and no event.
const scopeSet = (scopes: string | readonly string[] | null) =>
  new Set(
    (typeof scopes === 'string' ? scopes.split(/[\s,]+/) : (scopes ?? [])).filter((scope) => scope !== ''),
  );

export function scopeChange(
  before: string | readonly string[] | null,
  after: string | readonly string[] | null,
): { added: string[]; removed: string[] } | null {
  const previous = scopeSet(before);
  const now = scopeSet(after);
  const added = [...now].filter((scope) => !previous.has(scope)).sort();
  const removed = [...previous].filter((scope) => !now.has(scope)).sort();
  return added.length === 0 && removed.length === 0 ? null : { added, removed };
}
