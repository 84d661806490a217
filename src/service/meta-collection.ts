// The built-in `Collection` collection: every user collection is a record here, `{id, code, ast, publicKey?}`
// keyed by its id `namespace/Name`. Polybase ran this collection's functions with a host function `parse`;
// Vellum implements its two functions natively (creating and updating a record means checking a schema, which
// is not something a sandboxed function can do), with the same observable behaviour:
//   constructor(id, code): checks the id and the schema; `ast` is Polylang 0.6's stable AST of the code;
//     `publicKey` is the signer's key when the request is signed.
//   updateCode(code): replaces the code; who may is not Polybase's rule (the creator's key, or anyone for a
//     collection created unsigned) but schema-access.ts's: the owner or an admin key, never an unsigned request.
//     The stored records are cast to the new schema (records.ts checks first that every one can be).
// Creating a collection is also subject to schema-access.ts (admin keys, the collection-creation policy).

import {
  checkSchema,
  hasErrors,
  parse,
  toStableAst,
  type Collection,
  type CheckedProgram,
  type Diagnostic,
  type Program,
  type SourceFile,
} from '../lang/index.ts';
import { checkCollectionId, layoutOf, type Layout } from '../store/index.ts';
import type { PublicKey } from '../auth/index.ts';
import { ServiceError, invalidArgument } from './errors.ts';

export const META_COLLECTION_ID = 'Collection';

export const META_COLLECTION_CODE = `@public
collection Collection {
  id: string;
  name?: string;
  lastRecordUpdated?: string;
  code?: string;
  ast?: string;
  publicKey?: PublicKey;

  @index(publicKey);
  @index([lastRecordUpdated, desc]);

  constructor (id: string, code: string) {
    this.id = id;
    this.code = code;
    this.ast = parse(code, id);
    if (ctx.publicKey) this.publicKey = ctx.publicKey;
  }

  updateCode (code: string) {
    if (this.publicKey != ctx.publicKey) {
      throw error('invalid owner');
    }
    this.code = code;
    this.ast = parse(code, this.id);
  }
}
`;

function metaNode(): { program: Program; node: Collection } {
  // Syntax only: `parse(code, id)` is the host function the checker does not know, and we never run these bodies.
  const parsed = parse(META_COLLECTION_CODE, 'Collection');
  const node = parsed.program?.collections.find((c) => c.name.name === 'Collection');
  if (!parsed.program || !node) throw new Error('the built-in Collection schema does not parse');
  return { program: parsed.program, node };
}

export interface BuiltInMeta {
  readonly node: Collection;
  readonly layout: Layout;
  /** The built-in record `GET /v0/collections/Collection/records/Collection` returns. */
  readonly record: Readonly<{ id: string; code: string; ast: string }>;
}

let builtIn: BuiltInMeta | undefined;

/** The built-in Collection schema, parsed on first use: importing the library should not parse (nor load the parser). */
export function metaCollection(): BuiltInMeta {
  if (builtIn === undefined) {
    const meta = metaNode();
    builtIn = {
      node: meta.node,
      layout: layoutOf(meta.node),
      record: Object.freeze({ id: META_COLLECTION_ID, code: META_COLLECTION_CODE, ast: JSON.stringify(toStableAst(meta.program, META_COLLECTION_CODE, '')) }),
    };
  }
  return builtIn;
}

/** Most indexes a collection may have (besides the records' own keys): every write copies the record into each. */
export const MAX_INDEXES = 64;

/** A user collection's schema, checked and ready to compile. */
export interface CheckedCollection {
  collectionId: string;
  name: string;
  namespace: string;
  code: string;
  program: Program;
  checked: CheckedProgram;
  source: SourceFile;
  node: Collection;
  layout: Layout;
}

/** `ns/sub/Name` → namespace `ns/sub`, name `Name`; the errors Polybase gives for ids it refuses. */
export function splitCollectionId(collectionId: string): { namespace: string; name: string } {
  const slash = collectionId.lastIndexOf('/');
  if (slash <= 0) throw invalidArgument('collection/invalid-id', 'collection id is missing namespace');
  // Checked before the schema record is written: the store refuses the collection itself only afterwards.
  checkCollectionId(collectionId);
  const name = collectionId.slice(slash + 1);
  if (name.startsWith('$')) throw invalidArgument('collection/invalid-id', "collection name cannot start with '$'");
  if (name === '') throw invalidArgument('collection/invalid-id', 'collection id is missing a name after the last "/"');
  return { namespace: collectionId.slice(0, slash), name };
}

function invalidSchema(message: string): ServiceError {
  return invalidArgument('collection/invalid-schema', message);
}

/** Diagnostics as one message: `ns/Name:3:5: error V3001: …` per error, the first ten. */
export function describeDiagnostics(diagnostics: readonly Diagnostic[], source: SourceFile): string {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const lines = errors.slice(0, 10).map((d) => {
    const { line, column } = source.position(d.span.start);
    return `${source.name}:${line}:${column}: error ${d.code}: ${d.message}`;
  });
  if (errors.length > 10) lines.push(`… and ${errors.length - 10} more errors`);
  return lines.join('\n');
}

/** Checks a schema text for the collection `collectionId`; throws `collection/invalid-schema` with line and column. */
export function checkCollectionSchema(collectionId: string, code: string): CheckedCollection {
  const { namespace, name } = splitCollectionId(collectionId);
  const result = checkSchema(code, collectionId);
  if (!result.program || !result.checked || hasErrors(result.diagnostics)) {
    throw invalidSchema(describeDiagnostics(result.diagnostics, result.source) || 'the schema has errors');
  }
  const node = result.program.collections.find((c) => c.name.name === name);
  if (!node) throw invalidSchema(`code is missing definition for collection ${name}`);
  for (const decorator of node.decorators) {
    if (decorator.name === 'delegate') throw invalidSchema('unknown collection directives ["delegate"]');
  }
  let layout: Layout;
  try {
    layout = layoutOf(node);
  } catch (error) {
    if (error instanceof Error) throw invalidSchema(error.message);
    throw error;
  }
  const indexes = layout.indexes.filter((index) => !index.primary).length;
  if (indexes > MAX_INDEXES) {
    throw invalidSchema(
      `collection ${name} has ${indexes} indexes (one for each top-level field that can be indexed, and each different @index); at most ${MAX_INDEXES} are allowed`,
    );
  }
  return { collectionId, name, namespace, code, program: result.program, checked: result.checked, source: result.source, node, layout };
}

/** The record the constructor `(id, code)` creates. */
export function newCollectionRecord(checked: CheckedCollection, signer: PublicKey | undefined): Record<string, unknown> {
  const record: Record<string, unknown> = { id: checked.collectionId, code: checked.code, ast: astOf(checked) };
  if (signer) record.publicKey = signer.toJwk();
  return record;
}

/**
 * The record `updateCode(code)` leaves. (Who may update: schema-access.ts; whether the stored records can follow
 * the new schema is checked against them: `RecordService.checkRecordsFollow`.)
 */
export function updatedCollectionRecord(current: Record<string, unknown>, checked: CheckedCollection): Record<string, unknown> {
  return { ...current, code: checked.code, ast: astOf(checked) };
}

function astOf(checked: CheckedCollection): string {
  return JSON.stringify(toStableAst(checked.program, checked.source, checked.namespace));
}

/** The `{args}` of a Collection constructor: `[id, code]`, both strings. */
export function constructorArgs(args: readonly unknown[]): { id: string; code: string } {
  if (args.length !== 2) throw invalidArgument('function/invalid-args', `method constructor args invalid, expected 2 got ${args.length}`);
  const [id, code] = args;
  if (typeof id !== 'string') throw invalidArgument('function/invalid-args', 'invalid argument type for parameter "id": expected type: string');
  if (typeof code !== 'string') throw invalidArgument('function/invalid-args', 'invalid argument type for parameter "code": expected type: string');
  return { id, code };
}

/** The `{args}` of `updateCode`: `[code]`. */
export function updateCodeArgs(args: readonly unknown[]): string {
  if (args.length !== 1) throw invalidArgument('function/invalid-args', `method updateCode args invalid, expected 1 got ${args.length}`);
  if (typeof args[0] !== 'string') throw invalidArgument('function/invalid-args', 'invalid argument type for parameter "code": expected type: string');
  return args[0];
}
