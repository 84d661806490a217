// What the checker hands to later phases (compiler, runtime, store, service): every collection with
// its fields and function signatures resolved to semantic types, its indexes and permission
// decorators, and side tables from body nodes to their types and meanings.

import type {
  CallExpression,
  Collection,
  Expression,
  FieldDeclaration,
  ForOfStatement,
  FunctionDeclaration,
  IdentifierExpression,
  IndexDeclaration,
  IndexDirection,
  MemberExpression,
  Parameter,
  Program,
  VariableDeclaration,
} from './ast.ts';
import type { Builtin, BuiltinReceiver } from './builtins.ts';
import type { ProgramResolution } from './resolver.ts';
import type { Type } from './types.ts';

export interface CheckedField {
  name: string;
  optional: boolean;
  type: Type;
  /** `@read`, `@delegate`, `@call` on the field; set only when the field's type is authenticable
   *  (Polybase ignored them elsewhere, and the checker reports them). */
  read: boolean;
  delegate: boolean;
  call: boolean;
  node: FieldDeclaration;
}

export interface CheckedParameter {
  name: string;
  optional: boolean;
  /** A parameter typed with a collection name is a whole `record` of it; `record` is one of this collection. */
  type: Type;
  node: Parameter;
}

export interface CheckedFunction {
  name: string;
  parameters: CheckedParameter[];
  /** Null when the function declares no return type (it may return anything or nothing). */
  returnType: Type | null;
  /** Whether the function carries a `@call` decorator at all, and the authenticable fields its
   *  arguments name (in order, without duplicates). `@call` with no arguments has `fields: []`. */
  call: { decorated: boolean; fields: string[] };
  /** Set on a `@migrate` function: it is never called; it runs over each stored record when its schema is installed. */
  migration?: true;
  node: FunctionDeclaration;
}

export interface CheckedIndexField {
  path: string[];
  direction: IndexDirection;
}

export interface CheckedIndex {
  fields: CheckedIndexField[];
  node: IndexDeclaration;
}

export interface CheckedCollection {
  name: string;
  /** Collection-level decorators: `@public` (read and call), `@read`, `@call`. */
  permissions: { public: boolean; read: boolean; call: boolean };
  /** Declared fields in source order; when a name is declared twice, only the first is kept. */
  fields: CheckedField[];
  fieldsByName: Map<string, CheckedField>;
  functions: CheckedFunction[];
  functionsByName: Map<string, CheckedFunction>;
  constructorFunction: CheckedFunction | undefined;
  indexes: CheckedIndex[];
  node: Collection;
}

/** What an identifier in a body refers to. */
export type Binding =
  | { kind: 'parameter'; name: string; index: number; type: Type; optional: boolean }
  | { kind: 'variable'; name: string; constant: boolean; type: Type; declaration: VariableDeclaration | ForOfStatement }
  | { kind: 'global'; builtin: Builtin }
  | { kind: 'namespace'; receiver: BuiltinReceiver }
  | { kind: 'undefined' };

/** What a call expression calls. */
export type CallTarget =
  | { kind: 'builtin'; builtin: Builtin }
  | { kind: 'function'; collection: string; function: CheckedFunction };

export interface CheckedProgram {
  program: Program;
  /** In source order; a duplicate collection name keeps only the first declaration. */
  collections: CheckedCollection[];
  collectionsByName: Map<string, CheckedCollection>;
  /** Every name tied to its declaration, and each local's frame slot (resolver.ts). */
  resolution: ProgramResolution;
  /** The type of every expression in every function body. */
  types: Map<Expression, Type>;
  /** The meaning of every identifier expression that resolved. */
  bindings: Map<IdentifierExpression, Binding>;
  /** The target of every call that resolved to a built-in or a collection function. */
  calls: Map<CallExpression, CallTarget>;
  /** Member reads that are built-in properties or constants (`s.length`, `Math.PI`, `ctx.publicKey`). */
  properties: Map<MemberExpression, Builtin>;
}
