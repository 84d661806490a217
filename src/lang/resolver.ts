// The resolver: one pass over a function body, before the checker and the compiler, that ties every name to what
// it names (as jlox's Resolver does). Its result is read by the checker (types and errors), by the runtime's
// compiler (frame slots) and by the language server (hover, definition, references, rename); none of them resolves
// names itself.
//
// Scopes follow JavaScript's block scoping. Parameters and the body's top-level statements share the function's
// outermost scope (so `let x` beside a parameter `x` is a redeclaration); each block, loop and branch opens one.
// A `let`/`const` is visible in its whole block but may only be used after its declaration (the "temporal dead
// zone": in `let x = x + 1` the `x` read is the new, uninitialised one). Names no local declares are looked up
// among the built-ins: `undefined`, the namespaces (`Math`, `ctx`…) and the globals (`error`, `parseInt`…).
//
// Each local gets a slot in its function's frame: parameters first, in order, then the variables in the order
// their scopes open (a block's declarations are numbered when the block is entered). Slots are never reused.

import type {
  Collection,
  Decorator,
  Expression,
  FieldDeclaration,
  ForOfStatement,
  FunctionDeclaration,
  Identifier,
  IdentifierExpression,
  MemberExpression,
  Parameter,
  Program,
  Statement,
  TypeNode,
  VariableDeclaration,
} from './ast.ts';
import { lookupGlobal, lookupNamespace, type Builtin, type BuiltinReceiver } from './builtins.ts';

/** A parameter or a variable of a function body. */
export interface Local {
  kind: 'parameter' | 'variable';
  name: string;
  /** Where it is declared: a parameter, a `let`/`const`, or the variable of a `for…of`/`for…in` loop. */
  node: Parameter | VariableDeclaration | ForOfStatement;
  /** The parameter's position; -1 for a variable. */
  index: number;
  constant: boolean;
  /** Its index in the function's frame (see the top of this file). */
  slot: number;
  /** How many scopes deep it is declared: 0 for parameters and the body's top level. */
  depth: number;
  /** Its use, shared by every identifier that reads it after its declaration. */
  readonly use: Resolved;
  /** Its use before its declaration (the temporal dead zone), made when one is met. */
  early?: Resolved;
}

/** What an identifier expression names. An identifier that names nothing is absent from `uses`. */
export type Resolved =
  | { kind: 'local'; local: Local }
  /** A local read or written before its declaration: an error (and a fault when run). */
  | { kind: 'uninitialised'; local: Local }
  | { kind: 'global'; builtin: Builtin }
  | { kind: 'namespace'; receiver: BuiltinReceiver }
  | { kind: 'undefined' };

/** The side tables, keyed by AST node. A program's functions share one set of them (see resolveProgram). */
export interface ResolutionTables {
  /** The local each declaration declares. A redeclaration (a second `let x` in one scope, or beside a
   *  parameter `x`) and a repeated parameter name declare none. */
  declared: Map<Parameter | VariableDeclaration | ForOfStatement, Local>;
  /** What each identifier expression of a body names; absent when it names nothing. */
  uses: Map<IdentifierExpression, Resolved>;
  /** For identifiers that name nothing: the locals declared where they are, innermost first (for "did you mean";
   *  computed when asked, so that many unknown names among many locals cost no more than the walk). */
  visibleAt: Map<IdentifierExpression, () => string[]>;
  /** `this.x` (read, written or called): the field or function of the collection it names. */
  members: Map<MemberExpression, FieldDeclaration | FunctionDeclaration>;
}

export interface FunctionResolution extends ResolutionTables {
  fn: FunctionDeclaration;
  /** Every local that has a slot, in slot order: `locals[i].slot === i`. */
  locals: Local[];
  /** The number of slots a frame of this function needs. */
  slotCount: number;
}

/** Every function of a program; its tables (inherited) hold the entries of all of them, and each function's
 *  resolution reads the same tables (one set of maps per program, not per function). */
export interface ProgramResolution extends ResolutionTables {
  functions: Map<FunctionDeclaration, FunctionResolution>;
  /** A collection's name used as a type (a field's, a parameter's, a return or a `let` type): the collection.
   *  The first declaration when a name is declared twice; absent when no collection has the name. */
  typeReferences: Map<Identifier, Collection>;
  /** A name in a decorator's or an index's arguments (`@call(owner)`, `@index(name, [info.city, desc])`): the field
   *  of its collection it names (the first of a repeated name); an index path's later segments name the fields of
   *  the object type before them. Absent when it names no field. */
  fieldReferences: Map<Identifier, FieldDeclaration>;
}

const UNDEFINED: Resolved = { kind: 'undefined' };
const globals = new Map<string, Resolved | null>();

/** A name no local declares: a built-in, or nothing (null). */
function builtinNamed(name: string): Resolved | null {
  let resolved = globals.get(name);
  if (resolved !== undefined) return resolved;
  if (name === 'undefined') resolved = UNDEFINED;
  else {
    const receiver = lookupNamespace(name);
    const builtin = receiver ? undefined : lookupGlobal(name);
    resolved = receiver ? { kind: 'namespace', receiver } : builtin ? { kind: 'global', builtin } : null;
  }
  globals.set(name, resolved);
  return resolved;
}

const callees = new Map<string, Resolved | null>();

/** A callee named by an identifier no local declares: a global function first (`Number(x)` calls the function,
 *  though `Number` alone is the namespace), else whatever the name is. */
function calleeNamed(name: string): Resolved | null {
  let resolved = callees.get(name);
  if (resolved === undefined) {
    const builtin = lookupGlobal(name);
    resolved = builtin?.kind === 'function' ? { kind: 'global', builtin } : builtinNamed(name);
    callees.set(name, resolved);
  }
  return resolved;
}

class Scope {
  /** Names declared or reserved here (created on first use: most blocks declare nothing). */
  names: Map<string, Local> | undefined;
  /** The same locals in declaration order; the first `ready` of them are past their declaration (a scope's
   *  declarations are reached in the order they are written). */
  order: Local[] | undefined;
  ready = 0;
  constructor(
    readonly parent: Scope | null,
    readonly depth: number,
  ) {}
}

const resolved = new WeakMap<FunctionDeclaration, FunctionResolution>();

/**
 * The resolution of one function body, computed once per declaration (the runtime's compiler asks for it). With its
 * collection, `this.x` is tied to the field or function it names. The checker and the language server read a
 * program's resolution (resolveProgram) instead: remembering every function of every checked program here cost
 * more than the check itself (a weak map of short-lived keys is expensive to collect), so a program's resolution
 * is not remembered, and the compiler resolves a body once more (the same pass, the same result).
 */
export function resolveFunction(fn: FunctionDeclaration, collection?: Collection): FunctionResolution {
  let resolution = resolved.get(fn);
  if (resolution === undefined) {
    resolution = new FunctionResolver(fn, membersOf(collection), newTables()).run();
    resolved.set(fn, resolution);
  }
  return resolution;
}

function newTables(): ResolutionTables {
  return { declared: new Map(), uses: new Map(), visibleAt: new Map(), members: new Map() };
}

interface Members {
  fields: Map<string, FieldDeclaration>;
  functions: Map<string, FunctionDeclaration>;
}

/** A collection's fields and functions by name (the first of a repeated name). */
function membersOf(collection: Collection | undefined): Members {
  const members: Members = { fields: new Map(), functions: new Map() };
  for (const item of collection?.items ?? []) {
    if (item.kind === 'field' && !members.fields.has(item.name.name)) members.fields.set(item.name.name, item);
    if (item.kind === 'function' && !members.functions.has(item.name.name)) members.functions.set(item.name.name, item);
  }
  return members;
}

/** Every function of a program resolved. The collection names used as types and the fields named in decorators and
 *  indexes, which only the language server reads, are found when first asked (see ProgramTables). */
export function resolveProgram(program: Program): ProgramResolution {
  const resolution = new ProgramTables(program);
  for (const collection of program.collections) resolveFunctionsInto(resolution, collection, membersOf(collection));
  return resolution;
}

/** A program's resolution. `typeReferences` and `fieldReferences` walk every collection once more and nothing in a
 *  check reads them, so they are computed on first use (from the program and the functions resolved by then). A
 *  copy by spread (`{ ...resolution }`, as src/lsp/incremental.ts makes) copies the tables but not the two getters. */
class ProgramTables implements ProgramResolution {
  readonly declared = new Map<Parameter | VariableDeclaration | ForOfStatement, Local>();
  readonly uses = new Map<IdentifierExpression, Resolved>();
  readonly visibleAt = new Map<IdentifierExpression, () => string[]>();
  readonly members = new Map<MemberExpression, FieldDeclaration | FunctionDeclaration>();
  readonly functions = new Map<FunctionDeclaration, FunctionResolution>();
  // Private fields (#): a spread copy takes only the tables.
  readonly #program: Program;
  #typeReferences: Map<Identifier, Collection> | undefined = undefined;
  #fieldReferences: Map<Identifier, FieldDeclaration> | undefined = undefined;

  constructor(program: Program) {
    this.#program = program;
  }

  get typeReferences(): Map<Identifier, Collection> {
    return (this.#typeReferences ??= typeReferencesOf(this.#program, this.functions));
  }

  get fieldReferences(): Map<Identifier, FieldDeclaration> {
    return (this.#fieldReferences ??= fieldReferencesOf(this.#program));
  }
}

/** The fields named in the decorators, indexes and `@search` of every collection (see ProgramResolution.fieldReferences). */
export function fieldReferencesOf(program: Program): Map<Identifier, FieldDeclaration> {
  const references = new Map<Identifier, FieldDeclaration>();
  for (const collection of program.collections) fieldReferencesIn(collection, membersOf(collection).fields, references);
  return references;
}

/** The fields of one collection named in its decorators, indexes and `@search`. */
function fieldReferencesIn(collection: Collection, fields: ReadonlyMap<string, FieldDeclaration>, references: Map<Identifier, FieldDeclaration>): void {
  decoratorFieldReferences(collection.decorators, fields, references);
  for (const item of collection.items) {
    if (item.kind === 'search') {
      for (const name of item.fields) {
        const field = fields.get(name.name);
        if (field) references.set(name, field);
      }
      continue;
    }
    if (item.kind !== 'index') {
      decoratorFieldReferences(item.decorators, fields, references);
      continue;
    }
    for (const indexField of item.fields) {
      let field: FieldDeclaration | undefined;
      for (const [i, segment] of indexField.path.entries()) {
        field = i === 0 ? fields.get(segment.name) : field?.type.kind === 'objectType' ? field.type.fields.find((f) => f.name.name === segment.name) : undefined;
        if (!field) break;
        references.set(segment, field);
      }
    }
  }
}

// The helpers of fieldReferencesOf and typeReferencesOf are functions of their own, not closures made per call:
// under tsx (esbuild's keepNames) every closure made costs a call that names it.

/** The decorators' arguments that name a field of `fields`. */
function decoratorFieldReferences(decorators: readonly Decorator[], fields: ReadonlyMap<string, FieldDeclaration>, references: Map<Identifier, FieldDeclaration>): void {
  for (const decorator of decorators) {
    for (const argument of decorator.arguments ?? []) {
      const field = fields.get(argument.name);
      if (field) references.set(argument, field);
    }
  }
}

/** Resolves the functions of one collection into a program's tables. The language server calls it for the collections an edit changed, after forgetting their old nodes. */
export function resolveCollectionInto(resolution: ProgramResolution, collection: Collection): void {
  resolveFunctionsInto(resolution, collection, membersOf(collection));
}

function resolveFunctionsInto(resolution: ProgramResolution, collection: Collection, members: Members): void {
  for (const item of collection.items) {
    if (item.kind === 'function') resolution.functions.set(item, new FunctionResolver(item, members, resolution).run());
  }
}

/** A collection's name used as a type (in a field, a parameter, a return type or a typed local): the collection
 *  it names, the first declaration when a name is declared twice. */
export function typeReferencesOf(program: Program, functions: ReadonlyMap<FunctionDeclaration, FunctionResolution>): Map<Identifier, Collection> {
  const collectionsByName = new Map<string, Collection>();
  for (const collection of program.collections) if (!collectionsByName.has(collection.name.name)) collectionsByName.set(collection.name.name, collection);
  const typeReferences = new Map<Identifier, Collection>();
  for (const collection of program.collections) {
    for (const item of collection.items) {
      if (item.kind === 'field') typeReference(item.type, collectionsByName, typeReferences);
      if (item.kind !== 'function') continue;
      for (const parameter of item.parameters) typeReference(parameter.type, collectionsByName, typeReferences);
      typeReference(item.returnType, collectionsByName, typeReferences);
      for (const local of functions.get(item)?.locals ?? []) {
        if (local.node.kind === 'variable') typeReference(local.node.typeAnnotation, collectionsByName, typeReferences);
      }
    }
  }
  return typeReferences;
}

/** Records the collection names that `type` uses. */
function typeReference(type: TypeNode | null | undefined, collectionsByName: ReadonlyMap<string, Collection>, typeReferences: Map<Identifier, Collection>): void {
  if (!type) return;
  switch (type.kind) {
    case 'referenceType': {
      const collection = collectionsByName.get(type.collection.name);
      if (collection) typeReferences.set(type.collection, collection);
      return;
    }
    case 'arrayType':
      return typeReference(type.element, collectionsByName, typeReferences);
    case 'mapType':
      typeReference(type.key, collectionsByName, typeReferences);
      return typeReference(type.value, collectionsByName, typeReferences);
    case 'objectType':
      for (const field of type.fields) typeReference(field.type, collectionsByName, typeReferences);
      return;
    default:
      return;
  }
}

class FunctionResolver {
  private scope: Scope;
  /** By slot: whether the walk has passed the local's declaration (the others are in their dead zone). */
  private readonly passed: boolean[] = [];
  private readonly result: FunctionResolution;

  constructor(
    private readonly fn: FunctionDeclaration,
    private readonly collection: Members,
    tables: ResolutionTables,
  ) {
    this.scope = new Scope(null, 0);
    const { declared, uses, visibleAt, members } = tables;
    this.result = { fn, locals: [], slotCount: 0, declared, uses, visibleAt, members };
  }

  run(): FunctionResolution {
    // Every parameter has a slot (arguments fill them by position); a repeated name names the first.
    const parameters = this.fn.parameters;
    for (let index = 0; index < parameters.length; index++) {
      const parameter = parameters[index]!;
      const local = this.newLocal('parameter', parameter.name.name, parameter, index, false);
      if (this.scope.names?.has(local.name)) continue;
      this.declareIn(this.scope, local);
      this.pass(local);
    }
    this.statements(this.fn.body.body);
    this.result.slotCount = this.result.locals.length;
    return this.result;
  }

  private newLocal(kind: Local['kind'], name: string, node: Local['node'], index: number, constant: boolean): Local {
    const local = { kind, name, node, index, constant, slot: this.result.locals.length, depth: this.scope.depth } as Local;
    (local as { use: Resolved }).use = { kind: 'local', local };
    this.result.locals.push(local);
    this.passed.push(false);
    return local;
  }

  private declareIn(scope: Scope, local: Local): void {
    (scope.names ??= new Map()).set(local.name, local);
    (scope.order ??= []).push(local);
    this.result.declared.set(local.node, local);
  }

  /** The walk has passed a declaration of the current scope: from here its name reads the local. */
  private pass(local: Local): void {
    this.passed[local.slot] = true;
    this.scope.ready++;
  }

  /** Opens a scope inside the current one; `close` leaves it. (Not a method taking the scope's work as a closure:
   *  one made per block cost an allocation and a context.) */
  private open(): void {
    this.scope = new Scope(this.scope, this.scope.depth + 1);
  }

  private close(): void {
    this.scope = this.scope.parent!;
  }

  /** Numbers and reserves the `let`/`const` declarations among `statements` in the current scope. */
  private reserve(statements: readonly Statement[]): void {
    for (const statement of statements) this.reserveOne(statement);
  }

  private reserveOne(statement: Statement): void {
    if (statement.kind !== 'variable' || this.scope.names?.has(statement.name.name)) return;
    this.declareIn(this.scope, this.newLocal('variable', statement.name.name, statement, -1, statement.declarationKind === 'const'));
  }

  private statements(statements: readonly Statement[]): void {
    this.reserve(statements);
    for (const statement of statements) this.statement(statement);
  }

  /** A statement in a position that is not a block (`if (x) y = 1;`) has its own scope. */
  private nested(statement: Statement): void {
    if (statement.kind === 'block') {
      this.block(statement.body);
      return;
    }
    this.open();
    this.reserveOne(statement);
    this.statement(statement);
    this.close();
  }

  /** A block: a scope whose declarations are reserved when it opens. */
  private block(statements: readonly Statement[]): void {
    this.open();
    this.reserve(statements);
    for (const statement of statements) this.statement(statement);
    this.close();
  }

  private statement(statement: Statement): void {
    switch (statement.kind) {
      case 'block':
        this.block(statement.body);
        return;
      case 'variable':
        if (statement.init) this.expression(statement.init);
        this.initialise(statement);
        return;
      case 'expressionStatement':
        this.expression(statement.expression);
        return;
      case 'if':
        this.expression(statement.test);
        this.nested(statement.consequent);
        if (statement.alternate) this.nested(statement.alternate);
        return;
      case 'while':
        this.expression(statement.test);
        this.nested(statement.body);
        return;
      case 'for': {
        const init = statement.init;
        this.open();
        if (init?.kind === 'variable') {
          this.reserveOne(init);
          this.statement(init);
        } else if (init) this.expression(init);
        if (statement.test) this.expression(statement.test);
        if (statement.update) this.expression(statement.update);
        this.nested(statement.body);
        this.close();
        return;
      }
      case 'forOf':
        // The iterable is read outside the loop's scope.
        this.expression(statement.iterable);
        this.open();
        const local = this.newLocal('variable', statement.name.name, statement, -1, statement.declarationKind === 'const');
        this.declareIn(this.scope, local);
        this.pass(local);
        this.nested(statement.body);
        this.close();
        return;
      case 'return':
        if (statement.argument) this.expression(statement.argument);
        return;
      case 'throw':
        this.expression(statement.argument);
        return;
      case 'break':
      case 'continue':
        return;
    }
  }

  /** A `let`/`const` reached: from here its name reads the variable (a redeclaration declares nothing). */
  private initialise(declaration: VariableDeclaration): void {
    const local = this.result.declared.get(declaration);
    if (local) this.pass(local);
  }

  private expression(e: Expression): void {
    switch (e.kind) {
      case 'number':
      case 'string':
      case 'boolean':
      case 'null':
      case 'this':
        return;
      case 'identifierExpression':
        this.name(e, false);
        return;
      case 'arrayLiteral':
        for (const element of e.elements) this.expression(element);
        return;
      case 'objectLiteral':
        for (const property of e.properties) this.expression(property.value);
        return;
      case 'member':
        if (e.object.kind === 'this') {
          const member = this.collection.fields.get(e.property.name) ?? this.collection.functions.get(e.property.name);
          if (member) this.result.members.set(e, member);
        } else this.expression(e.object);
        return;
      case 'index':
        this.expression(e.object);
        this.expression(e.index);
        return;
      case 'call':
        if (e.callee.kind === 'identifierExpression') this.name(e.callee, true);
        else this.expression(e.callee);
        for (const argument of e.arguments) this.expression(argument);
        return;
      case 'unary':
      case 'update':
        this.expression(e.argument);
        return;
      case 'binary':
      case 'logical':
        this.expression(e.left);
        this.expression(e.right);
        return;
      case 'conditional':
        this.expression(e.test);
        this.expression(e.consequent);
        this.expression(e.alternate);
        return;
      case 'assignment':
        this.expression(e.target);
        this.expression(e.value);
        return;
    }
  }

  private name(e: IdentifierExpression, callee: boolean): void {
    const name = e.name;
    for (let scope: Scope | null = this.scope; scope !== null; scope = scope.parent) {
      const local = scope.names?.get(name);
      if (local) {
        this.result.uses.set(e, this.passed[local.slot] ? local.use : (local.early ??= { kind: 'uninitialised', local }));
        return;
      }
    }
    const builtin = callee ? calleeNamed(name) : builtinNamed(name);
    if (builtin) this.result.uses.set(e, builtin);
    else this.result.visibleAt.set(e, this.visibleNames());
  }

  /** The locals declared at this point, innermost scope first, each scope in declaration order. */
  private visibleNames(): () => string[] {
    const declared: [Local[], number][] = [];
    for (let scope: Scope | null = this.scope; scope !== null; scope = scope.parent) {
      if (scope.ready > 0) declared.push([scope.order!, scope.ready]);
    }
    return () => declared.flatMap(([locals, count]) => locals.slice(0, count).map((local) => local.name));
  }
}
