// The types of `expand` (docs/service.md, "Expanding references"): which paths a collection may expand, and what
// an answer holds for them. A generated schema lists its reference fields under `references`, each with the
// schema of the collection it points to (an array of it for an array of references).

/** A schema's reference fields, each with the schema it points to (`{}` for a schema without any). */
type ReferencesOf<S> = S extends { references: infer R } ? R : {};
type Target<T> = T extends readonly (infer U)[] ? U : T;

/** The paths `expand` may name: a reference field, or `field.sub` for a reference field of the record it points to. */
export type ExpandPath<S> = {
  [F in keyof ReferencesOf<S> & string]: F | `${F}.${keyof ReferencesOf<Target<ReferencesOf<S>[F]>> & string}`;
}[keyof ReferencesOf<S> & string];

type Head<P extends string> = P extends `${infer H}.${string}` ? H : P;
type Tail<P extends string, H extends string> = P extends `${H}.${infer T}` ? T : never;

/**
 * A record expanded beside its reference: `{ data }`, with `expand` when a second level was asked; null when
 * the caller may not read it, it does not exist, or the field is unset (the answer does not say which).
 */
export type ExpandedEntry<T, Sub extends string> = T extends { record: infer R }
  ? ({ data: R } & ([Sub] extends [never] ? {} : { expand: Expansion<T, Sub> })) | null
  : never;

/** The `expand` object of an answer for the paths `P`: one key per first segment. */
export type Expansion<S, P extends string> = {
  [H in Head<P> & keyof ReferencesOf<S>]: ReferencesOf<S>[H] extends readonly (infer T)[]
    ? ExpandedEntry<T, Tail<P, H>>[] | null
    : ExpandedEntry<ReferencesOf<S>[H], Tail<P, H>>;
};

/** A record with the records its references point to (`getExpanded`, `listExpanded`). */
export interface WithExpansion<R, E> {
  record: R;
  expand: E;
}

/** The `expand` query parameter, checked for its shape here (the service checks the fields). */
export function expandParameter(paths: readonly string[]): string {
  if (paths.length === 0) throw new TypeError('expand: give at least one field path');
  for (const path of paths) {
    if (typeof path !== 'string' || !/^[^.,]+(\.[^.,]+)?$/.test(path)) throw new TypeError(`expand: ${JSON.stringify(path)} is not a field path (field or field.field)`);
  }
  return paths.join(',');
}

/** The paths a subscription's `expand` takes: the schema's reference paths, or any text when it declares none. */
export type ExpandOption<S> = [ExpandPath<S>] extends [never] ? string : ExpandPath<S>;

/** What a subscription's `put` event carries as `expand` for the paths `P` (untyped without declared references). */
export type EventExpansion<S, P extends string> = [ExpandPath<S>] extends [never] ? Record<string, unknown> : Expansion<S, P>;
