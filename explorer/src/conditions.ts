// The values of the query builder's conditions, read from what was typed by the field's type (no DOM here, so
// test/explorer/modules.test.ts runs it in Node).
import { referencedCollectionId, type CollectionInfo, type StableType } from './schema.ts';

/** The values of an `in` / `not in`: `a, b, c`, or a JSON array (`["a,b", "c"]`) for values holding commas. */
export function listValues(info: CollectionInfo, path: string, type: StableType, text: string, max: number): unknown[] {
  let items: string[];
  if (text.trim().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${path}: expected a JSON array of values, such as ["a", "b"], got ${JSON.stringify(text)}`);
    }
    if (!Array.isArray(parsed)) throw new Error(`${path}: expected a JSON array of values, got ${JSON.stringify(text)}`);
    // Only texts, numbers and booleans: a null or an object would otherwise become the text "null" or "{…}".
    const odd = parsed.find((item) => typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean');
    if (odd !== undefined) throw new Error(`${path}: expected texts, numbers or booleans in the array, got ${JSON.stringify(odd)}`);
    items = parsed.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  } else {
    items = text.split(',').map((item) => item.trim());
    if (items.some((item) => item === '')) throw new Error(`${path}: expected values separated by commas, got an empty one in ${JSON.stringify(text)}`);
  }
  if (items.length === 0) throw new Error(`${path}: expected at least one value`);
  if (items.length > max) throw new Error(`${path}: at most ${max} values, got ${items.length}`);
  return items.map((item) => conditionValue(info, path, type, item));
}

/** A condition's value read by the field's type: a number, a boolean, a reference's {collectionId, id}, a text. */
export function conditionValue(info: CollectionInfo, path: string, type: StableType, text: string): unknown {
  if (type.kind === 'primitive' && type.value === 'number') {
    const number = Number(text.trim());
    if (text.trim() === '' || !Number.isFinite(number)) throw new Error(`${path}: expected a number, got ${JSON.stringify(text)}`);
    return number;
  }
  if (type.kind === 'primitive' && type.value === 'boolean') {
    if (text.trim() !== 'true' && text.trim() !== 'false') throw new Error(`${path}: expected true or false`);
    return text.trim() === 'true';
  }
  if (type.kind === 'foreignrecord') return { collectionId: referencedCollectionId(info, type.collection), id: text.trim() };
  if (type.kind === 'publickey') return text.trim();
  return text;
}
