// Permissions as pure functions, following Polybase DB (reference section 6):
//   read: the collection is @public or @read, or a @read/@delegate field holds the caller's key, or
//         references (through @delegate fields of the referenced records, recursively) lead to it;
//   call: constructors always; otherwise the record must be readable, and then the collection is
//         @public/@call and the function has no @call(fields), or a @call field or one of the
//         function's @call(fields) holds the key, directly or through @delegate references.
// Records are in wire form. The loader fetches referenced records for the delegation walk, which is
// guarded against cycles and bounded in depth and in the number of records it loads.

import type { Collection, FieldDeclaration, TypeNode } from '../lang/index.ts';
import type { CompiledCollection } from './collection.ts';
import { PublicKey, publicKeyFrom } from './values.ts';
import type { WireRecord } from './wire.ts';

export interface LoadedRecord {
  collection: CompiledCollection | Collection;
  record: WireRecord;
}

/** Loads a referenced record (for `@delegate` chains); null when it does not exist. */
export type PermissionLoader = (collectionId: string, id: string) => Promise<LoadedRecord | null>;

export type CallPermission =
  | { allowed: true }
  | { allowed: false; reason: 'unauthorized'; message: 'unauthorized read' | 'you do not have permission to call this function' };

/** How far a delegation chain is followed, and how many records one walk (one field of a read check) may load. */
export const MAX_DELEGATE_DEPTH = 16;
export const MAX_DELEGATE_LOADS = 256;

function nodeOf(collection: CompiledCollection | Collection): Collection {
  return 'node' in collection ? collection.node : collection;
}

function hasCollectionDecorator(node: Collection, name: 'public' | 'read' | 'call'): boolean {
  return node.decorators.some((d) => d.name === name);
}

function fieldHas(field: FieldDeclaration, name: 'read' | 'delegate' | 'call'): boolean {
  return field.decorators.some((d) => d.name === name);
}

function isAuthenticable(type: TypeNode): boolean {
  if (type.kind === 'publicKeyType' || type.kind === 'referenceType') return true;
  return type.kind === 'arrayType' && (type.element.kind === 'publicKeyType' || type.element.kind === 'referenceType');
}

function fieldsOf(node: Collection): FieldDeclaration[] {
  return node.items.filter((item): item is FieldDeclaration => item.kind === 'field' && isAuthenticable(item.type));
}

function toKey(value: unknown): PublicKey | undefined {
  try {
    return publicKeyFrom(value);
  } catch {
    return undefined;
  }
}

/** One permission check: the caller's key, the loader and the walk's bookkeeping. */
class Walk {
  private loads = 0;
  private readonly visited = new Set<string>();

  constructor(
    private readonly key: PublicKey,
    private readonly loader: PermissionLoader,
  ) {}

  /** Whether any of `fields` of `record` holds the key, directly or through @delegate references. */
  async anyField(fields: readonly FieldDeclaration[], record: WireRecord, depth: number): Promise<boolean> {
    for (const field of fields) {
      const value = record[field.name.name];
      if (value === undefined || value === null) continue;
      const values = Array.isArray(value) ? value : [value];
      const element = field.type.kind === 'arrayType' ? field.type.element : field.type;
      for (const item of values) {
        if (element.kind === 'publicKeyType') {
          const candidate = toKey(item);
          if (candidate && candidate.equals(this.key)) return true;
        } else if (element.kind === 'referenceType' && (await this.reference(item, depth))) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether the referenced record's @delegate fields hold the key, directly or through further references. */
  async reference(value: unknown, depth: number): Promise<boolean> {
    if (depth >= MAX_DELEGATE_DEPTH || this.loads >= MAX_DELEGATE_LOADS) return false;
    if (typeof value !== 'object' || value === null) return false;
    const { collectionId, id } = value as { collectionId?: unknown; id?: unknown };
    if (typeof collectionId !== 'string' || typeof id !== 'string' || collectionId === '') return false;
    const visitKey = `${collectionId}\u0000${id}`;
    if (this.visited.has(visitKey)) return false;
    this.visited.add(visitKey);
    this.loads++;
    const loaded = await this.loader(collectionId, id);
    if (!loaded) return false;
    const delegates = fieldsOf(nodeOf(loaded.collection)).filter((f) => fieldHas(f, 'delegate'));
    return this.anyField(delegates, loaded.record, depth + 1);
  }
}

/** Whether anyone may read every record of the collection: it is `@public` or has a collection-level `@read`. */
export function readableByEveryone(collection: CompiledCollection | Collection): boolean {
  const node = nodeOf(collection);
  return hasCollectionDecorator(node, 'public') || hasCollectionDecorator(node, 'read');
}

/**
 * The fields whose values grant read of a record (canRead looks at nothing else): the top-level `@read` and
 * `@delegate` fields of a PublicKey or reference type, or an array of them.
 */
export function readGrantingFields(collection: CompiledCollection | Collection): FieldDeclaration[] {
  return fieldsOf(nodeOf(collection)).filter((f) => fieldHas(f, 'read') || fieldHas(f, 'delegate'));
}

export async function canRead(
  collection: CompiledCollection | Collection,
  record: WireRecord,
  publicKey: PublicKey | undefined,
  loader: PermissionLoader,
): Promise<boolean> {
  if (readableByEveryone(collection)) return true;
  if (!publicKey) return false;
  // A key held in the record needs no load, so keys are looked at first. Then each reference field has a walk,
  // and a budget of loads, of its own: how far one field's references lead (through records the caller may not
  // read) must not keep another field from granting read, nor show in which records a list returns.
  const fields = readGrantingFields(collection);
  const holdsKeys = (field: FieldDeclaration) => elementOf(field.type).kind === 'publicKeyType';
  if (await new Walk(publicKey, loader).anyField(fields.filter(holdsKeys), record, 0)) return true;
  for (const field of fields.filter((f) => !holdsKeys(f))) {
    if (await new Walk(publicKey, loader).anyField([field], record, 0)) return true;
  }
  return false;
}

function elementOf(type: TypeNode): TypeNode {
  return type.kind === 'arrayType' ? type.element : type;
}

/**
 * Whether a reference (`{collectionId, id}`) held by a read-granting field grants the key read: the referenced
 * record's @delegate fields hold the key, directly or through further references. The same walk canRead makes
 * for that field, with the same bounds on depth and loads.
 */
export function delegatesTo(reference: unknown, publicKey: PublicKey, loader: PermissionLoader): Promise<boolean> {
  return new Walk(publicKey, loader).reference(reference, 0);
}

/** A key literal's 64 bytes (x‖y) as hex, or undefined when its bytes are not a point of secp256k1. */
export function keyLiteralXy(hex: string): string | undefined {
  // 33 bytes (compressed), 65 (04, x, y) or 64 (x, y): the point, checked to be on the curve.
  if (!/^[0-9a-fA-F]*$/.test(hex) || ![66, 128, 130].includes(hex.length)) return undefined;
  try {
    return PublicKey.fromBytes(Buffer.from(hex.length === 128 ? `04${hex}` : hex, 'hex')).toHex().slice(2);
  } catch {
    return undefined;
  }
}

export async function canCall(
  collection: CompiledCollection | Collection,
  functionName: string,
  record: WireRecord | null,
  publicKey: PublicKey | undefined,
  loader: PermissionLoader,
): Promise<CallPermission> {
  if (functionName === 'constructor') return ALLOWED;
  if (!record || !(await canRead(collection, record, publicKey, loader))) return UNREADABLE;
  const rule = callRuleOf(nodeOf(collection), functionName);
  if (rule.open) return ALLOWED;
  if (!publicKey) return DENIED;
  if (rule.keys.length > 0 && rule.keys.includes(publicKey.toHex().slice(2))) return ALLOWED;
  return (await new Walk(publicKey, loader).anyField(rule.fields, record, 0)) ? ALLOWED : DENIED;
}

/**
 * Whether anyone may call `functionName` on any record of the collection, signed or not: every record is readable
 * by everyone and the function is open (see CallRule). canCall then allows without reading anything, so a caller
 * may skip it.
 */
export function callableByEveryone(collection: CompiledCollection | Collection, functionName: string): boolean {
  return functionName === 'constructor' || (readableByEveryone(collection) && callRuleOf(nodeOf(collection), functionName).open);
}

const ALLOWED: CallPermission = Object.freeze({ allowed: true });
const UNREADABLE: CallPermission = Object.freeze({ allowed: false, reason: 'unauthorized', message: 'unauthorized read' });
const DENIED: CallPermission = Object.freeze({ allowed: false, reason: 'unauthorized', message: 'you do not have permission to call this function' });

/** Who may call a function of a readable record; it depends on the schema alone, so it is worked out once. */
interface CallRule {
  /** The collection is @public or @call and the function names no @call(fields): anyone who may read may call. */
  readonly open: boolean;
  /** Otherwise: the fields whose key (directly or through @delegate references) grants the call. */
  readonly fields: readonly FieldDeclaration[];
  /** And the keys named in the function's `@call(eth#0x…)` (Polylang after 0.6), as 64-byte x‖y hex. */
  readonly keys: readonly string[];
}

/**
 * Each schema's rules: one per function it declares, and one for any other name (no @call(fields) of its own).
 * Only declared names are kept, so callers asking about names of their choosing cannot grow the cache.
 */
const callRules = new WeakMap<Collection, { readonly declared: ReadonlyMap<string, CallRule>; readonly undeclared: CallRule }>();

function callRuleOf(node: Collection, functionName: string): CallRule {
  let rules = callRules.get(node);
  if (!rules) callRules.set(node, (rules = callRulesOf(node)));
  return rules.declared.get(functionName) ?? rules.undeclared;
}

function callRulesOf(node: Collection): { declared: Map<string, CallRule>; undeclared: CallRule } {
  const authenticable = fieldsOf(node);
  const callable = hasCollectionDecorator(node, 'public') || hasCollectionDecorator(node, 'call');
  const ruleFor = (named: ReadonlySet<string>, keys: readonly string[] = []): CallRule => ({
    open: callable && !authenticable.some((f) => named.has(f.name.name)) && keys.length === 0,
    fields: authenticable.filter((f) => fieldHas(f, 'call') || named.has(f.name.name)),
    keys,
  });
  const declared = new Map<string, CallRule>();
  for (const item of node.items) {
    // The first declaration of a name is the function (as items.find gave it).
    if (item.kind !== 'function' || declared.has(item.name.name)) continue;
    const named = new Set<string>();
    const keys: string[] = [];
    for (const decorator of item.decorators) {
      if (decorator.name !== 'call') continue;
      for (const argument of decorator.arguments ?? []) named.add(argument.name);
      for (const key of decorator.keys ?? []) {
        const xy = keyLiteralXy(key.hex);
        if (xy) keys.push(xy);
      }
    }
    declared.set(item.name.name, ruleFor(named, keys));
  }
  return { declared, undeclared: ruleFor(new Set()) };
}
