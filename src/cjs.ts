/**
 * The exports of a CommonJS package loaded with import(). Node's own loader gives them as named
 * exports and as `default`; a bundle's lazy chunk gives them as `default` only. Both have `default`.
 */
export async function importCommonJs<T>(loading: Promise<T>): Promise<T> {
  const m = await loading;
  return ((m as { default?: T }).default ?? m) as T;
}
