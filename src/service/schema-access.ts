// Who may change a schema over HTTP (the control plane): create a collection, or replace its code with
// `updateCode`. Deny unless allowed:
//   - an unsigned request never changes a schema;
//   - an admin key may create any collection and change any schema;
//   - a collection's owner (the key that created it, its record's `publicKey`) may change its schema; a
//     collection with no owner (installed with `vellum serve --schema`, or created unsigned by an earlier version)
//     belongs to the admins;
//   - creating `ns/Name`: a namespace reserved to keys (`reservedNamespaces`, and `pk/<key>/…` reserved to that
//     key unless `keyNamespaces` is false) is open to those keys only; any other namespace follows the
//     collection-creation policy: `anyone` (any signed key, as Polybase), `keys` (the listed keys) or `admins`.
// Every refusal says what would have been allowed. (The schema installed from files by the operator,
// RecordService.installSchema, is not a request and is not checked here.)

import { PublicKey } from '../auth/index.ts';
import { ServiceError, type ErrorReason } from './errors.ts';

export type CreatePolicy = 'anyone' | 'keys' | 'admins';

export const CREATE_POLICIES: readonly CreatePolicy[] = ['anyone', 'keys', 'admins'];

/** The default collection-creation policy: admin keys only (besides each key's own `pk/<key>/` namespace). */
export const DEFAULT_CREATE_POLICY: CreatePolicy = 'admins';

export interface ReservedNamespace {
  /** A namespace such as `acme` or `acme/app`: it and every namespace under it. */
  namespace: string;
  /** The keys that may create collections there (public keys in any form `parsePublicKey` takes). */
  keys: readonly (string | PublicKey)[];
}

export interface SchemaAccessOptions {
  /** Keys that may create any collection and change any schema (public keys, see `parsePublicKey`). */
  adminKeys?: readonly (string | PublicKey)[];
  /** Who may create collections outside reserved namespaces (default `admins`). */
  createPolicy?: CreatePolicy;
  /** The keys policy `keys` lets create collections. */
  createKeys?: readonly (string | PublicKey)[];
  /** Namespaces only the given keys (and admins) may create collections in. */
  reservedNamespaces?: readonly ReservedNamespace[];
  /**
   * Whether `pk/<key>/…` is reserved to `<key>` (default true): that key may create collections there whatever the
   * policy, and no other key may (admins aside). false: those namespaces are still closed to other keys, and the
   * key itself needs the policy's permission.
   */
  keyNamespaces?: boolean;
}

/**
 * A public key from a flag or a config file: `0x` + 128 hex digits (x ‖ y, as `PublicKey.toHex()` and Polybase's
 * `pk/` namespaces write it), or a SEC1 encoding in hex (`0x02…`/`0x03…` compressed, `0x04…` uncompressed).
 * Throws a TypeError saying what was expected.
 */
export function parsePublicKey(text: string): PublicKey {
  const hex = text.trim();
  try {
    if (/^0x[0-9a-fA-F]{128}$/.test(hex)) return PublicKey.fromHex(hex.toLowerCase());
    if (/^(0x)?(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/.test(hex)) return PublicKey.fromBytes(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
  } catch (error) {
    throw new TypeError(`${JSON.stringify(text.slice(0, 140))} is not a secp256k1 public key: ${(error as Error).message}`);
  }
  throw new TypeError(
    `expected a public key as 0x + 128 hex digits (x and y) or a compressed 0x02…/0x03… (66 hex digits), got ${JSON.stringify(text.slice(0, 140))}`,
  );
}

function keyOf(key: string | PublicKey): PublicKey {
  return typeof key === 'string' ? parsePublicKey(key) : key;
}

/** Keys compared by their hex form. */
class KeySet {
  readonly #hex: Set<string>;

  constructor(keys: readonly (string | PublicKey)[]) {
    this.#hex = new Set(keys.map((key) => keyOf(key).toHex()));
  }

  has(key: PublicKey | undefined): boolean {
    return key !== undefined && this.#hex.has(key.toHex());
  }

  get size(): number {
    return this.#hex.size;
  }
}

function forbidden(reason: ErrorReason, message: string): ServiceError {
  return new ServiceError('permission-denied', reason, message);
}

/** The collection's namespace `a/b` from its id `a/b/Name`. */
function namespaceOf(collectionId: string): string {
  return collectionId.slice(0, Math.max(0, collectionId.lastIndexOf('/')));
}

function within(namespace: string, reserved: string): boolean {
  return namespace === reserved || namespace.startsWith(`${reserved}/`);
}

export class SchemaAccess {
  readonly #admins: KeySet;
  readonly #policy: CreatePolicy;
  readonly #createKeys: KeySet;
  readonly #reserved: { namespace: string; keys: KeySet }[];
  readonly #keyNamespaces: boolean;

  constructor(options: SchemaAccessOptions = {}) {
    this.#admins = new KeySet(options.adminKeys ?? []);
    this.#policy = options.createPolicy ?? DEFAULT_CREATE_POLICY;
    if (!CREATE_POLICIES.includes(this.#policy)) {
      throw new TypeError(`createPolicy must be one of ${CREATE_POLICIES.join(', ')}, got ${JSON.stringify(options.createPolicy)}`);
    }
    this.#createKeys = new KeySet(options.createKeys ?? []);
    this.#reserved = (options.reservedNamespaces ?? []).map(({ namespace, keys }) => {
      if (namespace === '' || namespace.split('/').some((part) => part === '')) {
        throw new TypeError(`a reserved namespace must be one or more non-empty parts separated by "/", got ${JSON.stringify(namespace)}`);
      }
      return { namespace, keys: new KeySet(keys) };
    });
    this.#keyNamespaces = options.keyNamespaces ?? true;
  }

  isAdmin(key: PublicKey | undefined): boolean {
    return this.#admins.has(key);
  }

  /** Throws 403 `permission/create-collection` unless `signer` may create the collection `collectionId`. */
  checkCreate(collectionId: string, signer: PublicKey | undefined): void {
    if (this.#admins.has(signer)) return;
    const namespace = namespaceOf(collectionId);
    const refuse = (allowed: string) =>
      forbidden('permission/create-collection', `creating collection ${collectionId} is allowed only to ${allowed}${signer ? `; the request is signed by ${signer.toHex()}` : '; the request is not signed'}`);
    // Unsigned: refused before any key in the id is parsed (a curve check an unsigned flood would pay for).
    if (signer === undefined) throw refuse(this.#policyText());
    const owner = this.#keyNamespaceOwner(namespace);
    if (owner !== undefined) {
      if (owner === null) throw refuse('admin keys (a pk/ namespace is reserved to the key it names, written as 0x and 128 hex digits)');
      if (!signer.equals(owner)) throw refuse(`the key ${owner.toHex()} (whose namespace it is) and admin keys`);
      if (this.#keyNamespaces) return;
      // Without key namespaces, the key itself needs the policy's permission like anywhere else.
    }
    const reserved = this.#reserved.filter((entry) => within(namespace, entry.namespace));
    if (reserved.length > 0) {
      // The longest reservation decides: `acme/app` reserved to one key within `acme` reserved to another.
      const closest = reserved.reduce((a, b) => (b.namespace.length > a.namespace.length ? b : a));
      if (closest.keys.has(signer)) return;
      throw refuse(`the ${closest.keys.size} key(s) namespace ${closest.namespace} is reserved to, and admin keys`);
    }
    if (this.#policy === 'anyone') return;
    if (this.#policy === 'keys' && this.#createKeys.has(signer)) return;
    throw refuse(this.#policyText());
  }

  /**
   * Throws 403 `permission/change-schema` unless `signer` may change the schema of the collection whose record
   * has `owner` as its `publicKey` (undefined or null: no owner).
   */
  checkChange(collectionId: string, owner: unknown, signer: PublicKey | undefined, action = `changing the schema of collection ${collectionId}`): void {
    if (this.#admins.has(signer)) return;
    const ownerKey = owner === undefined || owner === null ? undefined : jwkKey(owner);
    if (ownerKey && signer?.equals(ownerKey)) return;
    const allowed = ownerKey ? `its owner ${ownerKey.toHex()} and admin keys` : 'admin keys (it has no owner: it was installed by the operator or created unsigned)';
    throw forbidden(
      'permission/change-schema',
      `${action} is allowed only to ${allowed}${signer ? `; the request is signed by ${signer.toHex()}` : '; the request is not signed'}`,
    );
  }

  /** `pk/<key>` (or under it): the key, null for a `pk/…` namespace that names no key, undefined for any other. */
  #keyNamespaceOwner(namespace: string): PublicKey | null | undefined {
    if (namespace !== 'pk' && !namespace.startsWith('pk/')) return undefined;
    const segment = namespace.split('/')[1];
    if (segment === undefined) return null;
    try {
      return parsePublicKey(segment);
    } catch {
      return null;
    }
  }

  #policyText(): string {
    switch (this.#policy) {
      case 'anyone':
        return 'signed requests (collection-creation policy anyone)';
      case 'keys':
        return `the ${this.#createKeys.size} key(s) of the collection-creation policy keys, and admin keys`;
      case 'admins':
        return `admin keys (collection-creation policy admins)${this.#keyNamespaces ? ', and to each key in its own namespace pk/<its key>/' : ''}`;
    }
  }
}

function jwkKey(stored: unknown): PublicKey | undefined {
  try {
    return PublicKey.fromJwk(stored);
  } catch {
    return undefined;
  }
}
