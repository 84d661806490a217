// The lexical facts of the language in one table: the words with a meaning of their own and where
// they have it. Polylang 0.6 reserved nothing beyond its structure keywords; the words added after
// 0.6 (see docs/checker.md, "Polylang after 0.6") are contextual here, so every name a 0.6 schema
// used (`contract`, `u32`, `in`, `of` as field, function or collection names) keeps its meaning.

/** Types written by name that are not collections. */
export const PRIMITIVE_TYPE_NAMES = ['string', 'number', 'boolean', 'bytes'] as const;
export type PrimitiveTypeName = (typeof PRIMITIVE_TYPE_NAMES)[number];

/** The sized numeric types of later Polylang: numbers at run time, with a range (and integer-ness) checked. */
export const SIZED_NUMBER_NAMES = ['u32', 'u64', 'i32', 'i64', 'f32', 'f64'] as const;
export type SizedNumberName = (typeof SIZED_NUMBER_NAMES)[number];

/** Every type name that is never a reference to a collection. */
export const BUILT_IN_TYPE_NAMES: readonly string[] = [...PRIMITIVE_TYPE_NAMES, 'PublicKey', ...SIZED_NUMBER_NAMES];

/** The words that start a collection: `collection` (0.6) and its later alias `contract` (a keyword only there). */
export const COLLECTION_KEYWORDS = ['collection', 'contract'] as const;

/**
 * Decorator names; `private` came after 0.6 (on a collection: no collection-wide read or call), `migrate` is Vellum's
 * (on a function: a migration run over the stored records when the schema that declares it is installed; docs/checker.md).
 * Both were "Unknown decorator" errors in 0.6, so no 0.6 schema holds them, and `migrate` stays an ordinary name.
 */
export const DECORATOR_NAMES = ['public', 'read', 'call', 'delegate', 'private', 'migrate'] as const;

export function isSizedNumberName(name: string): name is SizedNumberName {
  return (SIZED_NUMBER_NAMES as readonly string[]).includes(name);
}

export function isPrimitiveTypeName(name: string): name is PrimitiveTypeName {
  return (PRIMITIVE_TYPE_NAMES as readonly string[]).includes(name);
}
