// Function bodies: resolves every name and gives every expression a type, with JavaScript's
// semantics (Polybase ran bodies as JavaScript) minus its silent coercions: a mismatch that
// Polybase only met at run time (or silently coerced) is a diagnostic here. Permissive where
// JavaScript looseness is idiomatic and harmless: truthiness tests, comparing with null/undefined,
// reading map entries and optional fields as their declared type (only computing with, or storing,
// an optional parameter or a field that may never have been set needs a test first).

import type {
  ArrayLiteral,
  AssignmentExpression,
  BinaryExpression,
  BlockStatement,
  CallExpression,
  ConditionalExpression,
  Expression,
  ForOfStatement,
  ForStatement,
  IdentifierExpression,
  IfStatement,
  IndexExpression,
  LogicalExpression,
  MemberExpression,
  ObjectLiteral,
  Span,
  Statement,
  TypeNode,
  UnaryExpression,
  UpdateExpression,
  VariableDeclaration,
  WhileStatement,
} from './ast.ts';
import {
  type Builtin,
  arity,
  builtins,
  lookupGlobal,
  lookupMethod,
  lookupNamespace,
  membersOf,
  receiverBindings,
  receiverOf,
} from './builtins.ts';
import type { Binding, CheckedCollection, CheckedFunction, CheckedProgram } from './checked.ts';
import { type Diagnostic, type DiagnosticKind, diagnostic } from './diagnostics.ts';
import { resolveFunction, type FunctionResolution, type Resolved } from './resolver.ts';
import { type Facts, assignedFields, breaksOut, intersection, testFacts } from './flow.ts';
import {
  comparable,
  describe,
  eitherOf,
  fits,
  hasUnboundParameters,
  isKeyLike,
  isNumeric,
  arithmeticResult,
  sizeOf,
  orderable,
  plural,
  plusAssignable,
  plusResult,
  variableType,
} from './type-rules.ts';
import { didYouMean } from './suggest.ts';
import { SIZED_ARITHMETIC, sizedNumberProblem } from './sized-numbers.ts';
import type { SizedNumberName } from './words.ts';

/** How many "did you mean" searches one function body may run: each scans every candidate name,
 *  so a body full of unknown names must not make checking quadratic. */
const SUGGESTION_BUDGET = 25;
import {
  type ObjectField,
  type Type,
  anyType,
  arrayOf,
  mapOf,
  publicKeyType,
  referenceTo,
  sizedNumber,
  bindTypeParameters,
  booleanType,
  instantiate,
  isAssignable,
  isNullish,
  namespaceType,
  nullType,
  numberType,
  objectField,
  objectOf,
  recordOf,
  stringType,
  typeToString,
  undefinedType,
} from './types.ts';

/** A name read or written before its declaration (the resolver's dead zone). */
const UNINITIALISED = 'uninitialised';

/** What the body checker fills in (types, bindings, calls, properties) and reads (the program's resolution). With
 *  `partial` set (a plain check: only the language server reads types, calls and properties), it leaves `types`,
 *  `calls` and `properties` alone and keeps, per body, only the types that forbid writing through a value (all that
 *  `checkWritableChain` reads back); every diagnostic is the same either way. */
export type SideTables = Pick<CheckedProgram, 'types' | 'bindings' | 'calls' | 'properties' | 'resolution'> & { partial?: boolean };

/** Array methods that need a callback: named specifically, since JavaScript users reach for them. */
const callbackMethods = new Set([
  'map', 'filter', 'forEach', 'reduce', 'reduceRight', 'find', 'findIndex', 'findLast', 'findLastIndex',
  'some', 'every', 'sort', 'flatMap',
]);

/** The value of a number literal, or of a negated one (`-1`); undefined for anything else. */
function literalValue(expression: Expression): number | undefined {
  if (expression.kind === 'number') return expression.value;
  if (expression.kind === 'unary' && expression.operator === '-' && expression.argument.kind === 'number') return -expression.argument.value;
  return undefined;
}

/** The hash built-ins take bytes or a string (the catalogue types their argument as any). */
const HASHES: ReadonlySet<string> = new Set(['global.hashSHA256', 'global.hashBlake3']);

const COMPARISONS = new Set<string>(['==', '!=', '===', '!==', '<', '<=', '>', '>=']);

/** `this.f`, for messages about calls of the collection's function `f`. */
function functionLabel(fn: CheckedFunction): () => string {
  return () => `this.${fn.name}`;
}

/** A copy of `set` with `more` added. */
function withAll<T>(set: ReadonlySet<T>, more: ReadonlySet<T>): Set<T> {
  const result = new Set(set);
  for (const item of more) result.add(item);
  return result;
}

/** Type-parameter bindings that bind nothing, for reading (`instantiate`) only. */
const NO_BINDINGS: ReadonlyMap<string, Type> = new Map();

/** Whether a built-in's parameters name type parameters (`Object.values(m: map<K, V>)`): checking a call binds them. */
const bindsParameters = new Map<Builtin, boolean>();

/** The type-parameter bindings a call of `builtin` starts from: the receiver's (an array's element type), in a map
 *  of the call's own when the call can bind more, else one shared map that is only read. */
function bindingsFor(builtin: Builtin, receiver: Type | undefined): Map<string, Type> {
  let binds = bindsParameters.get(builtin);
  if (binds === undefined) {
    binds = builtin.parameters.some((parameter) => hasUnboundParameters(parameter.type, NO_BINDINGS));
    bindsParameters.set(builtin, binds);
  }
  if (binds || receiver?.kind === 'array') return receiver ? receiverBindings(receiver) : new Map();
  return NO_BINDINGS as Map<string, Type>;
}

/** What a name that no local declares means (a global, a namespace, `undefined`): one binding per built-in, not
 *  one per use. */
const builtinBindings = new Map<Resolved, Binding>();

function builtinBinding(resolved: Resolved & { kind: 'global' | 'namespace' | 'undefined' }): Binding {
  let binding = builtinBindings.get(resolved);
  if (binding === undefined) {
    binding =
      resolved.kind === 'global'
        ? { kind: 'global', builtin: resolved.builtin }
        : resolved.kind === 'namespace'
          ? { kind: 'namespace', receiver: resolved.receiver }
          : { kind: 'undefined' };
    builtinBindings.set(resolved, binding);
  }
  return binding;
}

/** No subjects (what most tests prove). */
const NO_SUBJECTS: ReadonlySet<object> = new Set();

/** A pseudo-subject of the flow facts: `this.id` has been assigned on every path to this point. */
const ID_ASSIGNED: Binding = { kind: 'undefined' };

/** Why some JavaScript names are absent (collection functions are deterministic and self-contained). */
const missingNameHints = new Map([
  ['Date', '; collection functions have no clock, so that every run gives the same result: pass the time as an argument'],
  ['random', '; collection functions have no randomness, so that every run gives the same result'],
  ['JSON', '; there is no JSON object in collection functions'],
  ['console', '; there is no console in collection functions: use error(message) to stop with a message'],
]);

/** What a target is, in words, a name and a type (`field "name" of type string`); put together by
 *  `describeTarget` only when a diagnostic is reported. */
interface TargetDescription {
  words: string;
  name?: string;
  type?: Type;
}

/** How messages name a call: `max`, `string.includes` (a built-in method and its receiver), or words
 *  built only when a diagnostic needs them. */
type CallLabel = string | { receiver: Type; method: string } | (() => string);

function labelText(label: CallLabel): string {
  if (typeof label === 'string') return label;
  if (typeof label === 'function') return label();
  return `${describe(label.receiver)}.${label.method}`;
}

/** An argument, as messages name it: `argument 2 of max (number)`. */
interface ArgumentDescription {
  argument: number;
  label: CallLabel;
  type: Type;
}

/** What a message says a value was meant for: a target, an argument, or words built only when needed. */
type Description = TargetDescription | ArgumentDescription | (() => string);

function descriptionText(description: Description): string {
  if (typeof description === 'function') return description();
  if ('argument' in description) return `argument ${description.argument} of ${labelText(description.label)} (${typeToString(description.type)})`;
  return describeTarget(description);
}

function describeTarget({ words, name, type }: TargetDescription): string {
  if (name === undefined) return type ? words + typeToString(type) : words;
  return type ? `${words} "${name}" of type ${typeToString(type)}` : `${words} "${name}"`;
}

/** A place an assignment, update or delete writes to. */
interface Target {
  type: Type;
  /** Whether null/undefined may be stored (optional fields and parameters, variables). */
  nullable: boolean;
  /** `field "name" of type string`, for messages: built by `describeTarget` only when one is reported. */
  description: TargetDescription;
  /** Whether `delete` may remove it (map entries, optional fields and properties). */
  deletable: boolean;
}

export interface BodyResult {
  /** Whether the body contains `this.id = ...` (the constructor must). */
  assignsId: boolean;
  /** In a constructor that assigns `this.id`: a place where it can finish without having done so
   *  (a `return`, or the end of the body), if there is one. */
  idMissingAt?: Span;
}

/** A field of `this` that may be missing, as a subject of the flow facts (see `present`). */
interface FieldSubject {
  field: string;
}

/** The fields of `this` that bodies track: in the constructor every field but `id` until it is
 *  assigned; elsewhere the optional fields the constructor never assigns. */
export interface TrackedFields {
  inConstructor: ReadonlyMap<string, FieldSubject>;
  elsewhere: ReadonlyMap<string, FieldSubject>;
}

/** Computed once per collection and shared by its functions, so that a function costs nothing per field. */
export function trackedFieldsOf(collection: CheckedCollection): TrackedFields {
  const constructorBody = collection.constructorFunction?.node.body;
  const setByConstructor =
    constructorBody && collection.fields.some((field) => field.optional) ? assignedFields(constructorBody) : new Set<string>();
  const inConstructor = new Map<string, FieldSubject>();
  const elsewhere = new Map<string, FieldSubject>();
  for (const field of collection.fields) {
    const subject = { field: field.name };
    if (field.name !== 'id') inConstructor.set(field.name, subject);
    if (field.optional && !setByConstructor.has(field.name)) elsewhere.set(field.name, subject);
  }
  return { inConstructor, elsewhere };
}

export function checkFunctionBody(
  collections: ReadonlyMap<string, CheckedCollection>,
  collection: CheckedCollection,
  fn: CheckedFunction,
  tracked: TrackedFields,
  tables: SideTables,
  diagnostics: Diagnostic[],
): BodyResult {
  const checker = new BodyChecker(collections, collection, fn, tracked, tables, diagnostics);
  checker.run();
  return { assignsId: checker.assignsId, idMissingAt: checker.idMissingAt };
}

class BodyChecker {
  assignsId = false;
  idMissingAt: Span | undefined;
  private loopDepth = 0;
  /** What each name of the body names (resolver.ts); the checker adds the types. */
  private readonly resolution: FunctionResolution;
  /** By slot: the binding of each local whose declaration has been checked. */
  private readonly bindingOf: (Binding | undefined)[] = [];
  private readonly isConstructor: boolean;
  /** The type of `this`: the whole record being created or changed. */
  private readonly thisType: Type;
  /** Whether only diagnostics are wanted (see SideTables): then `types`, `calls` and `properties` are not filled. */
  private readonly partial: boolean;
  /** In a partial check: the types noted in this body that forbid writing through them (made when one is noted). */
  private writeBlockers: Map<Expression, Type> | undefined;

  constructor(
    private readonly collections: ReadonlyMap<string, CheckedCollection>,
    private readonly collection: CheckedCollection,
    private readonly fn: CheckedFunction,
    tracked: TrackedFields,
    private readonly tables: SideTables,
    private readonly diagnostics: Diagnostic[],
  ) {
    this.isConstructor = fn.name === 'constructor';
    this.partial = tables.partial === true;
    this.trackedFields = this.isConstructor ? tracked.inConstructor : tracked.elsewhere;
    this.thisType = recordOf(collection.name);
    this.resolution = tables.resolution.functions.get(fn.node) ?? resolveFunction(fn.node, collection.node);
  }

  run(): void {
    const parameters = this.fn.parameters;
    for (let index = 0; index < parameters.length; index++) {
      const p = parameters[index]!;
      const local = this.resolution.declared.get(p.node);
      if (local) this.bindingOf[local.slot] = { kind: 'parameter', name: p.name, index, type: p.type, optional: p.optional };
    }
    const completes = !this.statements(this.fn.node.body.body);
    if (this.isConstructor && completes) this.noteIdMissing({ start: this.fn.node.body.span.end - 1, end: this.fn.node.body.span.end });
    const declared = this.fn.returnType;
    if (declared && completes) {
      this.report('missingReturn', this.fn.node.name.span, [this.fn.name, typeToString(declared)]);
    }
  }

  private suggestionsLeft = SUGGESTION_BUDGET;

  /** `; did you mean "x"?` while the budget lasts, else ''; a fixed hint for names people expect from JavaScript. */
  private suggest(name: string, candidates: () => Iterable<string>, globalName = false): string {
    const hint = globalName ? missingNameHints.get(name) : undefined;
    if (hint) return hint;
    if (this.suggestionsLeft <= 0) return '';
    this.suggestionsLeft--;
    return didYouMean(name, candidates());
  }

  private report(kind: DiagnosticKind, span: Span, args: (string | number)[] = []): void {
    this.diagnostics.push(diagnostic(kind, span, args));
  }

  // --- values that may be undefined, and where they are known to be present --------------------
  //
  // Subjects: optional parameters, and fields of `this` that may be missing: in the constructor
  // every field until it is assigned, elsewhere the optional fields the constructor never assigns.
  // Storing one where a value is required, or computing with it, is the bug Polybase met at run
  // time (`record is missing field`, NaN). Tests narrow a subject as TypeScript does, on the paths
  // where they hold: `if (name) …`, `if (name == undefined) { return; } …`, `name != null && …`; so
  // does assigning it a value.

  /** Subjects known to hold a value at this point of the body. While it is the same set as the enclosing branch's
   *  (the top of `outer`), it is copied before a change: most branches learn nothing and change nothing, and a copy
   *  for each was a large share of what checking a body allocated. */
  private present = new Set<object>();
  /** The enclosing branches' sets, innermost last (see `enter`). */
  private readonly outer: Set<object>[] = [];

  /** The fields of `this` this body tracks, each with the object that stands for it in `present`. */
  private readonly trackedFields: ReadonlyMap<string, FieldSubject>;

  /** Enters a branch of the body where `facts` also hold. Every `enter` is paired with a `leave`. (Not a method
   *  taking the branch as a closure: a closure made per branch costs an allocation and a context.) */
  private enter(facts: ReadonlySet<object>): void {
    this.outer.push(this.present);
    if (facts.size !== 0) this.present = withAll(this.present, facts);
  }

  /** Leaves the branch `enter` entered: what is known at its end (the set of before the branch when it changed nothing). */
  private leave(): Set<object> {
    const atEnd = this.present;
    this.present = this.outer.pop()!;
    return atEnd;
  }

  /** Continues with what a branch knew at its end (a set the branch changed is a copy of its own). */
  private adopt(known: Set<object>): void {
    this.present = known;
  }

  private addPresent(subject: object): void {
    if (this.present.has(subject)) return;
    this.own();
    this.present.add(subject);
  }

  private deletePresent(subject: object): void {
    if (!this.present.has(subject)) return;
    this.own();
    this.present.delete(subject);
  }

  /** Makes `present` a set of this branch's own before it changes, when it is the enclosing branch's. */
  private own(): void {
    const outer = this.outer;
    if (outer.length !== 0 && outer[outer.length - 1] === this.present) this.present = new Set(this.present);
  }

  /** `subject` as a function, made once per body (a closure made per test would cost a context per call). */
  private readonly subjectOf: (expression: Expression) => object | undefined = this.subject.bind(this);

  /** The subject `expression` names (an optional parameter or a tracked field of `this`), if any. */
  private subject(expression: Expression): object | undefined {
    if (expression.kind === 'identifierExpression') {
      const binding = this.tables.bindings.get(expression);
      return binding?.kind === 'parameter' && binding.optional ? binding : undefined;
    }
    if (expression.kind === 'member' && expression.object.kind === 'this') return this.trackedFields.get(expression.property.name);
    return undefined;
  }

  /** How to name `expression` in a message when it may be undefined here, else undefined. */
  private maybeUndefined(expression: Expression): string | undefined {
    const subject = this.subject(expression);
    if (!subject || this.present.has(subject)) return undefined;
    if ('field' in subject) {
      return this.isConstructor
        ? `this.${subject.field}, which is not assigned yet`
        : `this.${subject.field}, an optional field the constructor never sets, which may be undefined`;
    }
    return `the optional parameter "${(subject as { name: string }).name}", which may be undefined`;
  }

  /** Subjects a test proves present when it is truthy and when it is falsy. */
  private facts(test: Expression): Facts<object> {
    return testFacts(test, this.subjectOf);
  }

  /** Reports a computation with a value that may be undefined (`undefined + 1` is NaN). */
  private requireOperand(operator: string, operand: Expression): void {
    const phrase = this.maybeUndefined(operand);
    if (phrase) this.report('badOperand', operand.span, [operator, phrase]);
  }

  private ifStatement(statement: IfStatement): boolean {
    this.value(statement.test);
    const { whenTrue, whenFalse } = this.facts(statement.test);
    this.enter(whenTrue);
    const thenExits = this.statement(statement.consequent);
    const afterThen = this.leave();
    let elseExits = false;
    let afterElse: Set<object>;
    if (statement.alternate) {
      this.enter(whenFalse);
      elseExits = this.statement(statement.alternate);
      afterElse = this.leave();
    } else {
      afterElse = whenFalse.size === 0 ? this.present : withAll(this.present, whenFalse);
    }
    // Only the branches that can finish lead past the `if`.
    if (thenExits && !elseExits) this.adopt(afterElse);
    else if (elseExits && !thenExits) this.adopt(afterThen);
    else this.adopt(afterThen === afterElse ? afterThen : intersection(afterThen, afterElse));
    return thenExits && elseExits;
  }

  // ===========================================================================================
  // Statements

  /**
   * Checks a statement, and says whether it never completes normally: it returns, throws, breaks, continues or loops
   * forever on every path (a block when one of its statements does, an `if` when both branches do, an expression
   * statement when its type is `never`); so `if (!o) { continue; }` proves `o` present after it, as a `return` does.
   */
  private statement(statement: Statement): boolean {
    switch (statement.kind) {
      case 'block':
        return this.block(statement);
      case 'variable':
        this.variable(statement);
        return false;
      case 'expressionStatement':
        return this.value(statement.expression).kind === 'never';
      case 'if':
        return this.ifStatement(statement);
      case 'while':
        this.whileStatement(statement);
        return statement.test.kind === 'boolean' && statement.test.value && !breaksOut(statement.body);
      case 'for':
        this.forStatement(statement);
        return statement.test === null && !breaksOut(statement.body);
      case 'forOf':
        this.forOf(statement);
        return false;
      case 'break':
      case 'continue':
        if (this.loopDepth === 0) this.report('breakOutsideLoop', statement.span, [statement.kind]);
        return true;
      case 'return':
        this.returnStatement(statement.argument, statement.span);
        return true;
      case 'throw':
        this.value(statement.argument);
        return true;
    }
  }

  // Kept out of `statement`: a closure there would give every call of it a context to allocate.
  private block(block: BlockStatement): boolean {
    return this.statements(block.body);
  }

  private whileStatement(statement: WhileStatement): void {
    this.value(statement.test);
    this.enter(this.facts(statement.test).whenTrue);
    this.loopBody(statement.body);
    this.leave();
  }

  /** Checks every statement; whether one of them never completes (see `statement`). */
  private statements(statements: Statement[]): boolean {
    let exits = false;
    for (const statement of statements) if (this.statement(statement)) exits = true;
    return exits;
  }

  private loopBody(body: Statement): void {
    this.loopDepth++;
    this.statement(body);
    this.loopDepth--;
  }

  private variable(declaration: VariableDeclaration): void {
    const name = declaration.name.name;
    const constant = declaration.declarationKind === 'const';
    if (constant && !declaration.init) this.report('constWithoutInitializer', declaration.name.span, [name]);
    const declared = declaration.typeAnnotation ? this.annotatedType(declaration.typeAnnotation) : undefined;
    const initType = declaration.init ? this.value(declaration.init, declared) : anyType;
    // A typed let/const (Polylang after 0.6) holds its type: the initial value must fit it.
    if (declared && declaration.init && !fits(initType, declared, false)) {
      this.mismatch(initType, () => `"${name}" (${typeToString(declared)})`, declaration.init.span, false);
    }
    this.declare(declaration, {
      kind: 'variable',
      name,
      constant,
      type: declared ?? variableType(initType),
      declaration,
    });
  }

  /** The type a `let x: T` annotation names (a collection name is a reference to one of its records). */
  private annotatedType(node: TypeNode): Type {
    switch (node.kind) {
      case 'primitiveType':
        return { kind: node.name };
      case 'sizedNumberType':
        return sizedNumber(node.name);
      case 'publicKeyType':
        return publicKeyType;
      case 'arrayType':
        return arrayOf(this.annotatedType(node.element));
      case 'mapType':
        return mapOf(this.annotatedType(node.key), this.annotatedType(node.value));
      case 'recordType':
        return recordOf(this.collection.name);
      case 'referenceType':
        if (!this.collections.has(node.collection.name)) this.report('unknownName', node.collection.span, [node.collection.name, ' (not a type or a collection of this schema)']);
        return referenceTo(node.collection.name);
      case 'objectType':
        return anyType;
    }
  }

  /** A declaration checked: its local's binding, or an error when it declares none (a redeclaration). */
  private declare(declaration: VariableDeclaration | ForOfStatement, binding: Binding): void {
    const local = this.resolution.declared.get(declaration);
    if (local) this.bindingOf[local.slot] = binding;
    else this.report('duplicateVariable', declaration.name.span, [declaration.name.name]);
  }

  private forStatement(statement: ForStatement): void {
    if (statement.init?.kind === 'variable') this.variable(statement.init);
    else if (statement.init) this.value(statement.init);
    if (statement.test) this.value(statement.test);
    this.enter(statement.test ? this.facts(statement.test).whenTrue : NO_SUBJECTS);
    if (statement.update) this.value(statement.update);
    this.loopBody(statement.body);
    this.leave();
  }

  private forOf(statement: ForOfStatement): void {
    const iterable = this.value(statement.iterable);
    let element: Type;
    // for…in (Polylang after 0.6): an array's indexes as numbers (not JavaScript's strings), a map's keys.
    if (statement.forIn && iterable.kind === 'array') element = numberType;
    else if (statement.forIn && iterable.kind === 'map') element = iterable.key;
    else if (iterable.kind === 'array') element = iterable.element;
    else if (iterable.kind === 'map') element = iterable.value;
    else if (iterable.kind === 'any') element = anyType;
    else {
      this.report('notIterable', statement.iterable.span, [typeToString(iterable)]);
      element = anyType;
    }
    this.declare(statement, {
      kind: 'variable',
      name: statement.name.name,
      constant: statement.declarationKind === 'const',
      type: element,
      declaration: statement,
    });
    this.enter(NO_SUBJECTS);
    this.loopBody(statement.body);
    this.leave();
  }

  /** Records where a constructor can finish without `this.id` (the first such place). */
  private noteIdMissing(span: Span): void {
    if (!this.present.has(ID_ASSIGNED)) this.idMissingAt ??= span;
  }

  private returnStatement(argument: Expression | null, span: Span): void {
    if (this.isConstructor) this.noteIdMissing(span);
    const declared = this.fn.returnType;
    if (!argument) {
      if (declared) this.report('missingReturnValue', span, [this.fn.name, typeToString(declared)]);
      return;
    }
    const found = this.value(argument, declared ?? undefined);
    if (declared && !fits(found, declared, false)) {
      this.report('typeMismatchReturn', argument.span, [typeToString(found), this.fn.name, typeToString(declared)]);
    } else if (declared) {
      this.requirePresent(argument, () => `the return value of "${this.fn.name}" (${typeToString(declared)})`);
    }
  }

  // ===========================================================================================
  // Expressions

  /** The type of an expression used as a value (a namespace such as `Math` alone is not one). */
  private value(expression: Expression, expected?: Type): Type {
    const type = this.infer(expression, expected);
    if (type.kind === 'namespace') {
      this.report('notAValue', expression.span, [type.name, '']);
      return anyType;
    }
    const size = expected && sizeOf(expected);
    if (size) this.checkLiteral(expression, size);
    return type;
  }

  /** A number literal (or a negated one) where a sized type is expected must be a value of that type. */
  private checkLiteral(expression: Expression, size: SizedNumberName): void {
    const value = literalValue(expression);
    if (value === undefined) return;
    const problem = sizedNumberProblem(size, value);
    if (problem !== undefined) this.report('sizedNumberValue', expression.span, [problem]);
  }

  private infer(expression: Expression, expected?: Type): Type {
    const type = this.inferUncached(expression, expected);
    this.noteType(expression, type);
    return type;
  }

  /** Records the type of an expression: in the program's table, or in a partial check only where it forbids writes
   *  (a later note of the same expression replaces it, as in the table). */
  private noteType(expression: Expression, type: Type): void {
    if (!this.partial) this.tables.types.set(expression, type);
    else if (this.forbidsWrites(type)) (this.writeBlockers ??= new Map()).set(expression, type);
    else if (this.writeBlockers !== undefined) this.writeBlockers.delete(expression);
  }

  /** The type noted for an expression already checked, where it may forbid writes (undefined when it does not). */
  private notedType(expression: Expression): Type | undefined {
    return this.partial ? this.writeBlockers?.get(expression) : this.tables.types.get(expression);
  }

  private inferUncached(expression: Expression, expected: Type | undefined): Type {
    switch (expression.kind) {
      case 'number':
        return numberType;
      case 'string':
        return stringType;
      case 'boolean':
        return booleanType;
      case 'null':
        return nullType;
      case 'identifierExpression':
        return this.identifier(expression);
      case 'this':
        return this.thisType;
      case 'arrayLiteral':
        return this.arrayLiteral(expression, expected);
      case 'objectLiteral':
        return this.objectLiteral(expression, expected);
      case 'member':
        return this.member(expression);
      case 'index':
        return this.index(expression);
      case 'call':
        return this.call(expression);
      case 'unary':
        return this.unary(expression);
      case 'update':
        return this.update(expression);
      case 'binary':
        return this.binary(expression);
      case 'logical':
        return this.logical(expression, expected);
      case 'conditional':
        return this.conditional(expression, expected);
      case 'assignment':
        return this.assignment(expression);
    }
  }

  // Kept out of inferUncached: a closure there would give every call of it a context to allocate.
  private logical(expression: LogicalExpression, expected: Type | undefined): Type {
    const left = this.value(expression.left, expected);
    const facts = this.facts(expression.left);
    this.enter(expression.operator === '&&' ? facts.whenTrue : expression.operator === '||' ? facts.whenFalse : NO_SUBJECTS);
    const right = this.value(expression.right, expected);
    this.leave();
    return eitherOf(left, right, expected);
  }

  private conditional(expression: ConditionalExpression, expected: Type | undefined): Type {
    this.value(expression.test);
    const facts = this.facts(expression.test);
    this.enter(facts.whenTrue);
    const consequent = this.value(expression.consequent, expected);
    this.leave();
    this.enter(facts.whenFalse);
    const alternate = this.value(expression.alternate, expected);
    this.leave();
    return eitherOf(consequent, alternate, expected);
  }

  // --- names ---------------------------------------------------------------------------------

  private identifier(expression: IdentifierExpression): Type {
    const name = expression.name;
    const binding = this.resolve(expression);
    if (!binding) {
      this.reportUnknownName(expression);
      return anyType;
    }
    if (binding === UNINITIALISED) {
      this.report('usedBeforeDeclaration', expression.span, [name]);
      return anyType;
    }
    this.tables.bindings.set(expression, binding);
    switch (binding.kind) {
      case 'parameter':
      case 'variable':
        return binding.type;
      case 'undefined':
        return undefinedType;
      case 'namespace':
        return namespaceType(binding.receiver);
      case 'global':
        if (binding.builtin.kind === 'function') {
          this.report('notAValue', expression.span, [`the function "${name}"`, `; call it as ${name}(...)`]);
          return anyType;
        }
        return binding.builtin.returns;
    }
  }

  private reportUnknownName(expression: IdentifierExpression): void {
    const name = expression.name;
    this.report('unknownName', expression.span, [name, this.suggest(name, () => this.knownNames(expression), true)]);
  }

  /** What the resolver tied a name to, as a binding with its type; UNINITIALISED in its dead zone. */
  private resolve(expression: IdentifierExpression): Binding | typeof UNINITIALISED | undefined {
    const resolved = this.resolution.uses.get(expression);
    switch (resolved?.kind) {
      case undefined:
        return undefined;
      case 'local':
        return this.bindingOf[resolved.local.slot];
      case 'uninitialised':
        return UNINITIALISED;
      case 'global':
      case 'namespace':
      case 'undefined':
        return builtinBinding(resolved);
    }
  }

  private knownNames(expression: IdentifierExpression): string[] {
    const globals = builtins.filter((b) => b.receiver === 'global').map((b) => b.name);
    return [...(this.resolution.visibleAt.get(expression)?.() ?? []), 'undefined', 'Math', 'Object', 'Number', 'ctx', '$auth', ...globals];
  }

  // --- literals ------------------------------------------------------------------------------

  private arrayLiteral(expression: ArrayLiteral, expected: Type | undefined): Type {
    if (expected?.kind === 'array') {
      for (const element of expression.elements) {
        const found = this.value(element, expected.element);
        if (!fits(found, expected.element, false)) {
          this.mismatch(found, { words: 'an element of ', type: expected }, element.span, false);
        } else {
          this.requirePresent(element, { words: 'an element of ', type: expected });
        }
      }
      return expected;
    }
    let common: Type | undefined;
    for (const element of expression.elements) {
      const found = this.value(element);
      if (!common || common.kind === 'any') common = found;
      else if (isAssignable(found, common)) continue;
      else if (isAssignable(common, found)) common = found;
      else this.report('mixedArrayElements', element.span, [typeToString(common), typeToString(found)]);
    }
    return arrayOf(common && !isNullish(common) ? common : anyType);
  }

  private objectLiteral(expression: ObjectLiteral, expected: Type | undefined): Type {
    if (expected?.kind === 'object') {
      const seen = new Set<string>();
      for (const property of expression.properties) {
        const name = property.key.name;
        seen.add(name);
        const field = objectField(expected, name);
        if (!field) {
          this.report('unknownProperty', property.key.span, [name, typeToString(expected)]);
          this.value(property.value);
          continue;
        }
        const found = this.value(property.value, field.type);
        if (!fits(found, field.type, field.optional)) {
          this.mismatch(found, { words: 'property', name, type: field.type }, property.value.span, field.optional);
        } else if (!field.optional) {
          this.requirePresent(property.value, { words: 'property', name, type: field.type });
        }
      }
      for (const field of expected.fields) {
        if (!field.optional && !seen.has(field.name)) {
          this.report('missingProperty', expression.span, [field.name, typeToString(expected)]);
        }
      }
      return expected;
    }
    if (expected?.kind === 'map') {
      for (const property of expression.properties) {
        const found = this.value(property.value, expected.value);
        if (!fits(found, expected.value, false)) {
          this.mismatch(found, { words: 'an entry of ', type: expected }, property.value.span, false);
        } else {
          this.requirePresent(property.value, { words: 'an entry of ', type: expected });
        }
      }
      return expected;
    }
    // No target type to check against (`let o = { a: 1 }`): the literal's own shape.
    if (expression.properties.length === 0) return anyType;
    const fields: ObjectField[] = [];
    for (const property of expression.properties) {
      const type = this.value(property.value);
      fields.push({ name: property.key.name, optional: false, type: isNullish(type) ? anyType : type });
    }
    return objectOf(fields);
  }

  // --- members and indexes -------------------------------------------------------------------

  private member(expression: MemberExpression): Type {
    const objectType = this.infer(expression.object);
    return this.memberOf(objectType, expression.property.name, expression);
  }

  /** Reading property `name` of a value of `objectType` (not calling it). */
  private memberOf(objectType: Type, name: string, expression: MemberExpression): Type {
    const span = expression.property.span;
    switch (objectType.kind) {
      case 'any':
      case 'never':
        return anyType;
      case 'record': {
        const target = this.collections.get(objectType.collection);
        if (!target) return anyType; // declared elsewhere: its fields are unknown here
        const field = target.fieldsByName.get(name);
        if (field) return field.type;
        if (target.functionsByName.has(name)) {
          this.report('notAValue', span, [`the function "${name}"`, `; call it as this.${name}(...)`]);
          return anyType;
        }
        this.reportUnknownField(name, target, span);
        return anyType;
      }
      case 'reference':
        if (name === 'id' || name === 'collectionId') return stringType;
        this.report('unknownMember', span, [
          name,
          `a reference to ${objectType.collection}`,
          `; a stored reference holds only id and collectionId (pass the record as a parameter to read its fields)`,
        ]);
        return anyType;
      case 'object': {
        const field = objectField(objectType, name);
        if (field) return field.type;
        this.reportUnknownProperty(name, objectType, span);
        return anyType;
      }
      case 'map':
        // `m.key` is `m["key"]` in JavaScript.
        return objectType.value;
      default: {
        const builtin = lookupMethod(objectType, name);
        if (builtin && (builtin.kind === 'property' || builtin.kind === 'constant')) {
          if (!this.partial) this.tables.properties.set(expression, builtin);
          return instantiate(builtin.returns, objectType.kind === 'array' ? receiverBindings(objectType) : NO_BINDINGS);
        }
        if (builtin) {
          this.report('notAValue', span, [`the function "${name}"`, `; call it as ${name}(...)`]);
          return anyType;
        }
        this.reportUnknownBuiltinMember(name, objectType, span);
        return anyType;
      }
    }
  }

  // The reports below build their suggestions in closures; kept out of the methods that find the
  // problem, where a closure would give every call a context to allocate.
  private reportUnknownField(name: string, target: CheckedCollection, span: Span): void {
    this.report('unknownField', span, [name, target.name, this.suggest(name, () => target.fieldsByName.keys())]);
  }

  private reportUnknownProperty(name: string, objectType: Type & { kind: 'object' }, span: Span): void {
    this.report('unknownMember', span, [name, typeToString(objectType), this.suggest(name, () => objectType.fields.map((f) => f.name))]);
  }

  private reportUnknownBuiltinMember(name: string, objectType: Type, span: Span): void {
    this.report('unknownMember', span, [name, describe(objectType), this.suggest(name, () => membersOf(objectType).map((b) => b.name))]);
  }

  private suggestFunction(name: string): string {
    return this.suggest(name, () => [...this.collection.functionsByName.keys()].filter((n) => n !== 'constructor'));
  }

  private suggestMember(name: string, objectType: Type): string {
    return this.suggest(name, () => membersOf(objectType).map((b) => b.name), objectType.kind === 'namespace');
  }

  private index(expression: IndexExpression): Type {
    const objectType = this.value(expression.object);
    const keyType = this.value(expression.index);
    return this.elementOf(objectType, keyType, expression);
  }

  private badIndex(objectType: Type, keyType: Type, expression: IndexExpression): Type {
    this.report('invalidIndex', expression.index.span, [typeToString(objectType), typeToString(keyType)]);
    return anyType;
  }

  private elementOf(objectType: Type, keyType: Type, expression: IndexExpression): Type {
    switch (objectType.kind) {
      case 'any':
        return anyType;
      case 'array':
        return isNumeric(keyType) ? objectType.element : this.badIndex(objectType, keyType, expression);
      case 'string':
        return isNumeric(keyType) ? stringType : this.badIndex(objectType, keyType, expression);
      case 'map':
        return isKeyLike(keyType) ? objectType.value : this.badIndex(objectType, keyType, expression);
      case 'object':
      case 'record':
        if (expression.index.kind === 'string') {
          const name = expression.index.value;
          if (objectType.kind === 'object') {
            const field = objectField(objectType, name);
            if (field) return field.type;
            this.report('unknownMember', expression.index.span, [name, typeToString(objectType), '']);
            return anyType;
          }
          const target = this.collections.get(objectType.collection);
          const field = target?.fieldsByName.get(name);
          if (field || !target) return field?.type ?? anyType;
          this.report('unknownField', expression.index.span, [name, target.name, '']);
          return anyType;
        }
        return keyType.kind === 'string' || keyType.kind === 'any' ? anyType : this.badIndex(objectType, keyType, expression);
      default:
        return this.badIndex(objectType, keyType, expression);
    }
  }

  // --- calls ---------------------------------------------------------------------------------

  private call(expression: CallExpression): Type {
    const callee = expression.callee;
    if (callee.kind === 'identifierExpression') return this.callName(expression, callee);
    if (callee.kind === 'member') return this.callMember(expression, callee);
    const calleeType = this.value(callee);
    if (calleeType.kind !== 'any') this.report('notCallable', callee.span, [typeToString(calleeType)]);
    return this.uncheckedArguments(expression);
  }

  private uncheckedArguments(expression: CallExpression): Type {
    for (const argument of expression.arguments) this.value(argument);
    return anyType;
  }

  private callName(expression: CallExpression, callee: IdentifierExpression): Type {
    const name = callee.name;
    // `Number` is a namespace and a function: called, it is the function (the resolver knows callees).
    const binding = this.resolve(callee);
    if (!binding) {
      this.reportUnknownName(callee);
      return this.uncheckedArguments(expression);
    }
    if (binding === UNINITIALISED) {
      this.report('usedBeforeDeclaration', callee.span, [name]);
      return this.uncheckedArguments(expression);
    }
    this.tables.bindings.set(callee, binding);
    if (binding.kind === 'global' && binding.builtin.kind === 'function') {
      if (!this.partial) this.tables.calls.set(expression, { kind: 'builtin', builtin: binding.builtin });
      return this.callBuiltin(expression, binding.builtin, bindingsFor(binding.builtin, undefined), name);
    }
    this.report('notCallable', callee.span, [`"${name}"`]);
    return this.uncheckedArguments(expression);
  }

  private callMember(expression: CallExpression, callee: MemberExpression): Type {
    const name = callee.property.name;
    if (callee.object.kind === 'this') {
      this.noteType(callee.object, this.thisType);
      const fn = this.collection.functionsByName.get(name);
      if (fn?.migration) {
        this.report('migrationCalled', callee.property.span, [name]);
        return this.uncheckedArguments(expression);
      }
      if (fn && name !== 'constructor') {
        if (!this.partial) this.tables.calls.set(expression, { kind: 'function', collection: this.collection.name, function: fn });
        const result = this.callFunction(expression, fn);
        // The called function may have set any field; assume it did rather than report noise.
        for (const field of this.trackedFields.values()) this.addPresent(field);
        return result;
      }
      if (!this.collection.fieldsByName.has(name)) {
        const suffix =
          name === 'constructor'
            ? '; the constructor runs only when a record is created'
            : this.suggestFunction(name);
        this.report('unknownMethod', callee.property.span, [name, `collection "${this.collection.name}"`, suffix]);
        return this.uncheckedArguments(expression);
      }
    }

    const objectType = this.infer(callee.object);
    if (objectType.kind === 'any' || objectType.kind === 'never') return this.uncheckedArguments(expression);
    if (objectType.kind === 'record' && this.collections.get(objectType.collection)?.functionsByName.has(name)) {
      this.report('foreignFunctionCall', callee.property.span, [name, `a record of ${objectType.collection}`]);
      return this.uncheckedArguments(expression);
    }
    if (receiverOf(objectType)) {
      const builtin = lookupMethod(objectType, name);
      if (builtin && (builtin.kind === 'method' || builtin.kind === 'function')) {
        if (builtin.mutates) this.checkWritableChain(callee.object);
        if (!this.partial) this.tables.calls.set(expression, { kind: 'builtin', builtin });
        return this.callBuiltin(expression, builtin, bindingsFor(builtin, objectType), { receiver: objectType, method: name });
      }
      if (!builtin) {
        if (objectType.kind === 'array' && callbackMethods.has(name)) {
          this.report('arrayMapUnsupported', callee.property.span, [name]);
        } else {
          this.report('unknownMethod', callee.property.span, [
            name,
            describe(objectType),
            this.suggestMember(name, objectType),
          ]);
        }
        return this.uncheckedArguments(expression);
      }
    }
    if (objectType.kind === 'map') {
      this.report('unknownMethod', callee.property.span, [
        name,
        typeToString(objectType),
        '; maps have no methods: read entries as m[key], remove them with delete m[key], list them with Object.keys(m) or Object.values(m)',
      ]);
      return this.uncheckedArguments(expression);
    }
    const memberType = this.memberOf(objectType, name, callee);
    this.noteType(callee, memberType);
    if (memberType.kind !== 'any') this.report('notCallable', callee.span, [`${typeToString(memberType)} value "${name}"`]);
    return this.uncheckedArguments(expression);
  }

  private callBuiltin(expression: CallExpression, builtin: Builtin, bindings: Map<string, Type>, label: CallLabel): Type {
    const { min, max } = arity(builtin);
    this.checkArgumentCount(expression, label, min, max);
    const parameters = builtin.parameters;
    for (let i = 0; i < expression.arguments.length; i++) {
      const argument = expression.arguments[i]!;
      const parameter = parameters[Math.min(i, parameters.length - 1)];
      if (!parameter || (i >= parameters.length && !parameter.rest)) {
        this.value(argument);
        continue;
      }
      let target: Type;
      let found: Type;
      if (hasUnboundParameters(parameter.type, bindings)) {
        found = this.value(argument);
        bindTypeParameters(parameter.type, found, bindings);
        target = instantiate(parameter.type, bindings);
      } else {
        target = instantiate(parameter.type, bindings);
        found = this.value(argument, target);
      }
      if (!fits(found, target, false)) {
        this.report('typeMismatchArgument', argument.span, [i + 1, labelText(label), typeToString(target), typeToString(found)]);
      } else if (HASHES.has(builtin.id) && !['string', 'bytes', 'any', 'never'].includes(found.kind)) {
        this.report('typeMismatchArgument', argument.span, [i + 1, labelText(label), 'bytes or string', typeToString(found)]);
      } else if (target.kind !== 'any') {
        this.requirePresent(argument, { argument: i + 1, label, type: target });
      }
    }
    return instantiate(builtin.returns, bindings);
  }

  private callFunction(expression: CallExpression, fn: CheckedFunction): Type {
    const label = functionLabel(fn);
    const min = fn.parameters.filter((p) => !p.optional).length;
    this.checkArgumentCount(expression, label, min, fn.parameters.length);
    for (let i = 0; i < expression.arguments.length; i++) {
      const argument = expression.arguments[i]!;
      const parameter = fn.parameters[i];
      if (!parameter) {
        this.value(argument);
        continue;
      }
      const found = this.value(argument, parameter.type);
      if (!fits(found, parameter.type, parameter.optional)) {
        this.report('typeMismatchArgument', argument.span, [i + 1, labelText(label), typeToString(parameter.type), typeToString(found)]);
      } else if (!parameter.optional) {
        this.requirePresent(argument, { argument: i + 1, label, type: parameter.type });
      }
    }
    return fn.returnType ?? anyType;
  }

  private checkArgumentCount(expression: CallExpression, label: CallLabel, min: number, max: number): void {
    const count = expression.arguments.length;
    if (count >= min && count <= max) return;
    const expected =
      min === max ? plural(min, 'argument') : max === Infinity ? `at least ${plural(min, 'argument')}` : `${min} to ${max} arguments`;
    const extra = expression.arguments[max];
    const span = count > max && extra ? { start: extra.span.start, end: expression.arguments[count - 1]!.span.end } : expression.span;
    this.report('wrongArgumentCount', span, [labelText(label), expected, count]);
  }

  // --- operators -----------------------------------------------------------------------------

  private unary(expression: UnaryExpression): Type {
    if (expression.operator === 'delete') {
      const target = this.target(expression.argument, 'delete');
      if (target && !target.deletable) this.report('invalidDelete', expression.argument.span, [describeTarget(target.description)]);
      const deleted = this.subject(expression.argument);
      if (deleted) this.deletePresent(deleted);
      return booleanType;
    }
    const operand = this.value(expression.argument);
    const typeOk = expression.operator === '+' ? isNumeric(operand) || operand.kind === 'string' : isNumeric(operand);
    if (expression.operator !== '!' && typeOk) this.requireOperand(`unary ${expression.operator}`, expression.argument);
    switch (expression.operator) {
      case '!':
        return booleanType;
      case '+':
        if (!isNumeric(operand) && operand.kind !== 'string') {
          this.report('badOperand', expression.span, ['unary +', typeToString(operand)]);
        }
        return numberType;
      case '-':
        if (!isNumeric(operand)) this.report('badOperand', expression.span, [`unary ${expression.operator}`, typeToString(operand)]);
        // Negating a sized number keeps its type (and is checked: -1 is no u32).
        return operand.kind === 'number' ? operand : numberType;
      case '~':
        if (!isNumeric(operand)) this.report('badOperand', expression.span, [`unary ${expression.operator}`, typeToString(operand)]);
        return numberType;
    }
  }

  private update(expression: UpdateExpression): Type {
    const target = this.target(expression.argument, 'update');
    if (target && !isNumeric(target.type)) {
      this.report('badOperand', expression.span, [expression.operator, typeToString(target.type)]);
    } else if (target) {
      this.requireOperand(expression.operator, expression.argument);
    }
    // `i++` on a sized number keeps its type (and is checked against its range).
    return target?.type.kind === 'number' ? target.type : numberType;
  }

  private binary(expression: BinaryExpression): Type {
    const left = this.value(expression.left);
    const right = this.value(expression.right);
    const reported = this.diagnostics.length;
    const type = this.binaryType(expression, left, right);
    // Arithmetic with a missing value gives NaN; concatenating one gives "undefined", which
    // JavaScript (and TypeScript) accept, so only arithmetic is checked.
    const concatenates = expression.operator === '+' && (left.kind === 'string' || right.kind === 'string');
    const computes = !concatenates && !COMPARISONS.has(expression.operator);
    if (computes && this.diagnostics.length === reported) {
      this.requireOperand(expression.operator, expression.left);
      this.requireOperand(expression.operator, expression.right);
    }
    return type;
  }

  private badOperands(expression: BinaryExpression, left: Type, right: Type): void {
    this.report('badOperand', expression.span, [expression.operator, `${typeToString(left)} and ${typeToString(right)}`]);
  }

  private binaryType(expression: BinaryExpression, left: Type, right: Type): Type {
    const operator = expression.operator;
    switch (operator) {
      case '+': {
        const result = plusResult(left, right);
        if (!result) this.badOperands(expression, left, right);
        else this.checkLiteralOperands(expression, result);
        return result ?? anyType;
      }
      case '==':
      case '!=':
      case '===':
      case '!==':
        if (!comparable(left, right)) {
          this.report('incomparableTypes', expression.span, [typeToString(left), typeToString(right)]);
        }
        return booleanType;
      case '<':
      case '<=':
      case '>':
      case '>=':
        if (!orderable(left, right)) this.badOperands(expression, left, right);
        return booleanType;
      default: {
        if (!isNumeric(left) || !isNumeric(right)) {
          this.badOperands(expression, left, right);
          return numberType;
        }
        if (!SIZED_ARITHMETIC.has(operator)) return numberType;
        const result = arithmeticResult(left, right);
        if (!result) this.badOperands(expression, left, right);
        else this.checkLiteralOperands(expression, result);
        return result ?? anyType;
      }
    }
  }

  /** In sized arithmetic a literal operand must be a value of the sized type (`count + 1`, never `count + 0.5` on a u32). */
  private checkLiteralOperands(expression: BinaryExpression, result: Type): void {
    const size = sizeOf(result);
    if (!size) return;
    this.checkLiteral(expression.left, size);
    this.checkLiteral(expression.right, size);
  }

  // --- assignments ---------------------------------------------------------------------------

  private assignment(expression: AssignmentExpression): Type {
    const target = this.target(expression.target, 'assign', expression.operator === '=');
    if (!target) {
      this.value(expression.value);
      return anyType;
    }
    if (expression.operator === '=') {
      const found = this.value(expression.value, target.type);
      if (!fits(found, target.type, target.nullable)) {
        this.mismatch(found, target.description, expression.value.span, target.nullable);
      } else if (!target.nullable) {
        this.requirePresent(expression.value, target.description);
      }
      const assigned = this.subject(expression.target);
      if (assigned) {
        if (isNullish(found) || this.maybeUndefined(expression.value)) this.deletePresent(assigned);
        else this.addPresent(assigned);
      }
      return target.type.kind === 'any' ? found : target.type;
    }
    const operator = expression.operator;
    const sized = SIZED_ARITHMETIC.has(operator.slice(0, -1)) ? sizeOf(target.type) : undefined;
    const found = this.value(expression.value, sized ? target.type : undefined);
    const ok =
      operator === '+='
        ? plusAssignable(target.type, found)
        : isNumeric(target.type) && isNumeric(found) && (!sized || arithmeticResult(target.type, found) !== undefined);
    if (!ok) {
      this.report('badOperand', expression.span, [operator, `${typeToString(target.type)} and ${typeToString(found)}`]);
    } else if (!(operator === '+=' && (target.type.kind === 'string' || found.kind === 'string'))) {
      this.requireOperand(operator, expression.target);
      this.requireOperand(operator, expression.value);
    }
    return target.type;
  }

  /** Reports a value that may be undefined stored where a value is required. */
  private requirePresent(expression: Expression, description: Description): void {
    const phrase = this.maybeUndefined(expression);
    if (phrase) this.report('nullNotAllowed', expression.span, [`${phrase},`, descriptionText(description)]);
  }

  private mismatch(found: Type, description: Description, span: Span, nullable: boolean): void {
    if (isNullish(found) && !nullable) this.report('nullNotAllowed', span, [typeToString(found), descriptionText(description)]);
    else this.report('typeMismatchAssignment', span, [typeToString(found), descriptionText(description)]);
  }

  /**
   * Resolves what an assignment (`=` when `plain`), update or delete writes to, reporting writes
   * that are not allowed; undefined when the write is reported as invalid.
   */
  private target(expression: Expression, operation: 'assign' | 'update' | 'delete', plain = false): Target | undefined {
    switch (expression.kind) {
      case 'identifierExpression':
        return this.variableTarget(expression, operation);
      case 'member': {
        const objectType = this.infer(expression.object);
        const target = this.propertyTarget(objectType, expression.property.name, expression.object, expression.property.span, expression.span, operation, plain);
        if (target) this.noteType(expression, target.type);
        return target;
      }
      case 'index': {
        const objectType = this.value(expression.object);
        const keyType = this.value(expression.index);
        let target: Target | undefined;
        if ((objectType.kind === 'record' || objectType.kind === 'object') && expression.index.kind === 'string') {
          target = this.propertyTarget(objectType, expression.index.value, expression.object, expression.index.span, expression.span, operation, plain);
        } else if (objectType.kind === 'string') {
          this.report('readOnlyTarget', expression.span, ['a character of a string: strings cannot be changed']);
        } else {
          const type = this.elementOf(objectType, keyType, expression);
          if (this.checkWritableChain(expression.object)) {
            target = {
              type,
              nullable: objectType.kind === 'any',
              description: objectType.kind === 'any' ? { words: 'this element' } : { words: 'an element of ', type: objectType },
              deletable: objectType.kind === 'map' || objectType.kind === 'any',
            };
          }
        }
        if (target) this.noteType(expression, target.type);
        return target;
      }
      default:
        this.value(expression);
        this.report('readOnlyTarget', expression.span, ['this expression']);
        return undefined;
    }
  }

  private variableTarget(expression: IdentifierExpression, operation: 'assign' | 'update' | 'delete'): Target | undefined {
    const name = expression.name;
    const binding = this.resolve(expression);
    if (!binding) {
      this.reportUnknownName(expression);
      return undefined;
    }
    if (binding === UNINITIALISED) {
      this.report('usedBeforeDeclaration', expression.span, [name]);
      return undefined;
    }
    this.tables.bindings.set(expression, binding);
    if (binding.kind === 'variable' || binding.kind === 'parameter') {
      this.noteType(expression, binding.type);
      if (binding.kind === 'variable' && binding.constant && operation !== 'delete') {
        this.report('constantAssignment', expression.span, [name]);
        return undefined;
      }
      const what = binding.kind === 'variable' ? 'variable' : 'parameter';
      return {
        type: binding.type,
        nullable: binding.kind === 'variable' || binding.optional,
        description: { words: what, name, type: binding.type },
        deletable: false,
      };
    }
    this.report('readOnlyTarget', expression.span, [`"${name}"`]);
    return undefined;
  }

  private propertyTarget(
    objectType: Type,
    name: string,
    object: Expression,
    nameSpan: Span,
    span: Span,
    operation: 'assign' | 'update' | 'delete',
    plain: boolean,
  ): Target | undefined {
    if (objectType.kind === 'record') {
      if (objectType.collection !== this.collection.name) {
        this.report('foreignRecordReadOnly', span, [objectType.collection]);
        return undefined;
      }
      const field = this.collection.fieldsByName.get(name);
      if (!field) {
        if (this.collection.functionsByName.has(name)) this.report('readOnlyTarget', nameSpan, [`the function "${name}"`]);
        else this.reportUnknownField(name, this.collection, nameSpan);
        return undefined;
      }
      if (name === 'id') {
        if (this.isConstructor && object.kind === 'this' && operation === 'assign') {
          if (plain) {
            this.assignsId = true;
            this.addPresent(ID_ASSIGNED);
          }
        } else {
          this.report('idAssignedOutsideConstructor', span);
          return undefined;
        }
      }
      return {
        type: field.type,
        nullable: field.optional,
        description: { words: 'field', name, type: field.type },
        deletable: field.optional,
      };
    }
    const writable = objectType.kind === 'any' || objectType.kind === 'never' || objectType.kind === 'object' || objectType.kind === 'map';
    if (!writable) {
      this.report('readOnlyTarget', span, [`${describe(objectType)}.${name}`]);
      return undefined;
    }
    if (!this.checkWritableChain(object)) return undefined;
    switch (objectType.kind) {
      case 'any':
      case 'never':
        return { type: anyType, nullable: true, description: { words: 'property', name }, deletable: true };
      case 'object': {
        const field = objectField(objectType, name);
        if (!field) {
          this.reportUnknownProperty(name, objectType, nameSpan);
          return undefined;
        }
        return {
          type: field.type,
          nullable: field.optional,
          description: { words: 'property', name, type: field.type },
          deletable: field.optional,
        };
      }
      case 'map':
        return { type: objectType.value, nullable: false, description: { words: 'an entry of ', type: objectType }, deletable: true };
      default:
        this.report('readOnlyTarget', span, [`${describe(objectType)}.${name}`]);
        return undefined;
    }
  }

  /**
   * Whether writing inside `expression` (`expression.x = …`, `expression[k] = …`, a mutating
   * method on it) is allowed: not when the value lives in a record of another collection or in a
   * stored reference. Reports the first offence.
   */
  private checkWritableChain(expression: Expression): boolean {
    let current: Expression = expression;
    for (;;) {
      const type = this.notedType(current);
      if (type !== undefined && this.forbidsWrites(type)) {
        if (type.kind === 'record') this.report('foreignRecordReadOnly', expression.span, [type.collection]);
        else if (type.kind === 'reference') this.report('readOnlyTarget', expression.span, [`a stored reference to ${type.collection}`]);
        else this.report('readOnlyTarget', expression.span, [typeToString(type)]);
        return false;
      }
      if (current.kind === 'member' || current.kind === 'index') current = current.object;
      else return true;
    }
  }

  /** Whether writing inside a value of `type` is forbidden: a record of another collection, a stored reference, a
   *  namespace or a public key (checkWritableChain reports which). */
  private forbidsWrites(type: Type): boolean {
    switch (type.kind) {
      case 'record':
        return type.collection !== this.collection.name;
      case 'reference':
      case 'namespace':
      case 'publicKey':
        return true;
      default:
        return false;
    }
  }
}
