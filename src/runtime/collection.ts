// A collection compiled once for execution: its functions as closures and what execute and the
// permission checks need to know about its fields and decorators. Compilation is cached per program
// and collection id, so repeated calls of `compileCollection` with the same program are free.

import {
  fieldsOf,
  functionsOf,
  resolveFunction,
  type CheckedProgram,
  type Collection,
  type FieldDeclaration,
  type Program,
  type SourceFile,
  type Span,
} from '../lang/index.ts';
import { FunctionCompiler, type CompiledFunction } from './compiler.ts';
import type { StaticWorld } from './sized-types.ts';
import type { ConversionContext } from './wire.ts';

export interface CompiledCollection {
  /** The collection's name in the schema (`Account`). */
  name: string;
  /** Its full id (`ns/Account`); references to other collections use the same namespace. */
  collectionId: string;
  node: Collection;
  program: Program;
  source: SourceFile | undefined;
  fields: readonly FieldDeclaration[];
  functions: ReadonlyMap<string, CompiledFunction>;
  /** The positions of its statements; a running statement records its index (see ExecState.at). */
  spans: readonly Span[];
  /** Conversions for this collection's records: other collection names resolve in its namespace. */
  conversion: ConversionContext;
  /** Conversions for records loaded from storage: missing required fields get type defaults. */
  storedConversion: ConversionContext;
  /** Another collection of the same program (for record arguments of that collection). */
  sibling(name: string): CompiledCollection | undefined;
}

export interface CompileOptions {
  /** The collection's full id, `namespace/Name`; defaults to the name alone. */
  collectionId?: string;
  /** The schema text, to give errors a line and column. */
  source?: SourceFile;
  /**
   * Whether to compile common shapes (counted loops, `x = …`, `list.push(x)`…) to fused closures;
   * default true. With false every node takes the general path: same results and the same gas, only
   * slower. It exists so that tests can check the fast paths against the general ones.
   */
  fastPaths?: boolean;
}

export class CollectionNotFoundError extends Error {}

const cache = new WeakMap<Program, Map<string, CompiledCollection>>();

function programOf(input: Program | CheckedProgram | { program?: Program | undefined }): Program {
  if ('kind' in input && input.kind === 'program') return input as Program;
  const program = (input as { program?: Program }).program;
  if (!program) throw new TypeError('compileCollection needs a parsed program');
  return program;
}

/**
 * Compiles `collectionName` of a parsed (or checked) program. Throws CollectionNotFoundError when the
 * program has no such collection. Compilation itself never fails: constructs that cannot run
 * (an unknown name, a call of something that is not a function) compile to runtime faults.
 */
export function compileCollection(
  input: Program | CheckedProgram | { program?: Program | undefined; source?: SourceFile },
  collectionName: string,
  options: CompileOptions = {},
): CompiledCollection {
  const program = programOf(input);
  const source = options.source ?? ('source' in input ? (input as { source?: SourceFile }).source : undefined);
  const collectionId = options.collectionId ?? collectionName;
  let perProgram = cache.get(program);
  if (!perProgram) {
    perProgram = new Map();
    cache.set(program, perProgram);
  }
  const key = `${collectionName}\u0000${collectionId}\u0000${options.fastPaths === false ? 'general' : 'fast'}`;
  const hit = perProgram.get(key);
  if (hit && hit.source === source) return hit;

  const node = program.collections.find((c) => c.name.name === collectionName);
  if (!node) throw new CollectionNotFoundError(`collection "${collectionName}" is not declared in the schema`);
  const compiled = build(program, node, collectionId, source, options);
  perProgram.set(key, compiled);
  return compiled;
}

function build(program: Program, node: Collection, collectionId: string, source: SourceFile | undefined, options: CompileOptions): CompiledCollection {
  const namespace = collectionId.includes('/') ? collectionId.slice(0, collectionId.lastIndexOf('/')) : '';
  const collectionIdOf = (name: string) => (namespace ? `${namespace}/${name}` : name);

  const functions = new Map<string, CompiledFunction>();
  for (const declaration of functionsOf(node)) {
    if (functions.has(declaration.name.name)) continue;
    functions.set(declaration.name.name, {
      name: declaration.name.name,
      declaration,
      parameterCount: declaration.parameters.length,
      slotCount: 0,
      nestingDepth: 0,
      body: () => 0,
    });
  }
  const spans: Span[] = [];
  const world: StaticWorld = {
    fields: fieldsOf(node),
    fieldsOf: (name) => {
      const other = program.collections.find((c) => c.name.name === name);
      return other ? fieldsOf(other) : undefined;
    },
    functions,
  };
  for (const fn of functions.values()) {
    new FunctionCompiler(functions, resolveFunction(fn.declaration, node), spans, world, options.fastPaths !== false).compile(fn);
  }

  const compiled: CompiledCollection = {
    name: node.name.name,
    collectionId,
    node,
    program,
    source,
    fields: fieldsOf(node),
    functions,
    spans,
    conversion: { collectionIdOf, defaults: false, exactReferences: true },
    storedConversion: { collectionIdOf, defaults: true, exactReferences: false },
    sibling: (name) =>
      program.collections.some((c) => c.name.name === name)
        ? compileCollection(program, name, { ...options, collectionId: collectionIdOf(name) })
        : undefined,
  };
  return compiled;
}
