// The compiler from function bodies (AST) to closures. Names come resolved (src/lang/resolver.ts):
// every variable is a slot index in its function's frame, so a read is `frame.slots[i]`, and a use
// before its declaration (JavaScript's temporal dead zone) is known statically.
//
// Each statement pays its gas on entry: one for the statement and one per expression node in it
// (loops pay their test and update on every iteration), so metering is one subtraction per
// statement. Calls of built-ins and allocations pay more, by size, where they happen.

import {
  SIZED_ARITHMETIC,
  printExpression,
  type AssignmentExpression,
  type BinaryExpression,
  type BlockStatement,
  type CallExpression,
  type Expression,
  type FunctionDeclaration,
  type FunctionResolution,
  type IdentifierExpression,
  type Local,
  type MemberExpression,
  type SizedNumberName,
  type Span,
  type Statement,
  type UnaryExpression,
  type UpdateExpression,
  type VariableDeclaration,
} from '../lang/index.ts';
import { fastBinary, isFastOperator, type Operand } from './binary.ts';
import { runtimeBuiltins, type BuiltinCall, type RuntimeBuiltin } from './builtins.ts';
import { RuntimeFault, describeValue, jsFault, limitFault } from './errors.ts';
import { CALL_NESTING_LEVELS, GAS, MAX_NESTING_LEVELS } from './limits.ts';
import { nestingOf, type Nesting } from './nesting.ts';
import {
  add,
  compare,
  deleteIndex,
  getIndex,
  getMember,
  looseEquals,
  numeric,
  setIndex,
  strictEquals,
  toNumeric,
  type NumericOperator,
} from './operations.ts';
import { sizedArithmetic, sizedNegate, sizedStep, sizedValue, type SizedOperator } from './sized-arithmetic.ts';
import { forInItems } from './for-in.ts';
import { sizeOfType, staticTypeOf, type StaticType, type StaticWorld } from './sized-types.ts';
import { allocateString, charge, outOfGas, type ExecState } from './state.ts';
import { PublicKey, kindOf, newObject, type RuntimeObject } from './values.ts';

export const NORMAL = 0;
export const BREAK = 1;
export const CONTINUE = 2;
export const RETURN = 3;

export class Frame {
  ret: unknown = undefined;
  constructor(
    readonly self: RuntimeObject,
    readonly st: ExecState,
    readonly slots: unknown[],
  ) {}
}

export type Eval = (f: Frame) => unknown;
export type Exec = (f: Frame) => number;

export interface CompiledFunction {
  name: string;
  declaration: FunctionDeclaration;
  parameterCount: number;
  slotCount: number;
  /** The tree depth of the body (see nesting.ts). */
  nestingDepth: number;
  body: Exec;
}

/**
 * Calls a function of the collection on `self` (the entry call and `this.f(...)`); `siteDepth` is the tree
 * depth of the call in the caller's body. The nesting of the calls in progress, counted in tree levels, must
 * stay within MAX_NESTING_LEVELS, so that no call depends on the size of the host's stack.
 */
export function invoke(st: ExecState, self: RuntimeObject, fn: CompiledFunction, args: readonly unknown[], siteDepth = 0): unknown {
  if (st.depth >= st.limits.maxCallDepth) {
    throw limitFault(`call depth limit exceeded: more than ${st.limits.maxCallDepth} nested calls of collection functions`);
  }
  const outerNesting = st.nesting;
  const nesting = outerNesting + siteDepth + CALL_NESTING_LEVELS;
  if (nesting + fn.nestingDepth > MAX_NESTING_LEVELS) {
    throw limitFault(
      `nesting limit exceeded: the calls in progress would nest statements and expressions ${nesting + fn.nestingDepth} levels deep, more than ${MAX_NESTING_LEVELS} (each call counts ${CALL_NESTING_LEVELS}, plus the depth of the call in its function and the depth of the function called)`,
    );
  }
  if ((st.gas -= GAS.call) < 0) throw outOfGas(st);
  // Built by push so the array is packed (no holes): slot reads stay on V8's fast path.
  const slots: unknown[] = [];
  const n = Math.min(args.length, fn.parameterCount);
  for (let i = 0; i < n; i++) slots.push(args[i]);
  for (let i = n; i < fn.slotCount; i++) slots.push(undefined);
  const frame = new Frame(self, st, slots);
  const caller = st.at;
  st.depth++;
  st.nesting = nesting;
  const completion = fn.body(frame);
  st.nesting = outerNesting;
  st.depth--;
  st.at = caller;
  return completion === RETURN ? frame.ret : undefined;
}

// ---------------------------------------------------------------------------------------------
// Static gas: nodes per expression

function nodes(e: Expression | null): number {
  if (e === null) return 0;
  switch (e.kind) {
    case 'number':
    case 'string':
    case 'boolean':
    case 'null':
    case 'identifierExpression':
    case 'this':
      return GAS.node;
    case 'arrayLiteral':
      return GAS.node + e.elements.length * GAS.element + e.elements.reduce((sum, x) => sum + nodes(x), 0);
    case 'objectLiteral':
      return GAS.node + e.properties.length * GAS.key + e.properties.reduce((sum, p) => sum + nodes(p.value), 0);
    case 'member':
      return GAS.node + nodes(e.object);
    case 'index':
      return GAS.node + nodes(e.object) + nodes(e.index);
    case 'call':
      return GAS.node + nodes(e.callee) + e.arguments.reduce((sum, x) => sum + nodes(x), 0);
    case 'unary':
    case 'update':
      return GAS.node + nodes(e.argument);
    case 'binary':
    case 'logical':
      return GAS.node + nodes(e.left) + nodes(e.right);
    case 'conditional':
      return GAS.node + nodes(e.test) + nodes(e.consequent) + nodes(e.alternate);
    case 'assignment':
      return GAS.node + nodes(e.target) + nodes(e.value);
  }
}

/** Gas-free constant reads: a built-in constant's value computed once. */
function builtinConstant(builtin: RuntimeBuiltin): unknown {
  return builtin.call({ gas: Infinity } as ExecState, undefined, []); // constants cost nothing to compute
}

/** Namespaces used as values (`let m = Math;`): their constants, nothing callable. */
const namespaceValues: Record<string, RuntimeObject> = (() => {
  const values: Record<string, RuntimeObject> = {};
  for (const [name, id] of [['Math', 'Math'], ['Object', 'Object'], ['Number', 'Number']] as const) {
    const object = newObject();
    for (const builtin of runtimeBuiltins.values()) {
      if (builtin.entry.receiver === id && builtin.entry.kind === 'constant') {
        object[builtin.entry.name] = builtinConstant(builtin);
      }
    }
    values[name] = Object.freeze(object);
  }
  return values;
})();

function fault(message: string): Eval {
  return () => {
    throw jsFault(message);
  };
}

function constant(value: unknown): Eval {
  return () => value;
}

// ---------------------------------------------------------------------------------------------
// The compiler of one function

export class FunctionCompiler {
  private readonly declaration: FunctionDeclaration;
  private readonly nesting: Nesting;
  /** What is known of each local's type (sized-types.ts), from its declaration once compiled: decides
   *  whether its arithmetic is sized. */
  private readonly types = new Map<Local, StaticType | undefined>();

  constructor(
    private readonly functions: ReadonlyMap<string, CompiledFunction>,
    /** The function's names tied to their declarations, and its locals' slots. */
    private readonly resolution: FunctionResolution,
    /** The collection's statement positions: a running statement records its index here (`st.at`). */
    private readonly spans: Span[],
    /** The declarations the types of expressions come from (sized arithmetic). */
    private readonly world: StaticWorld,
    /** Fused closures for common shapes; false compiles everything the general way (for tests). */
    private readonly fast = true,
  ) {
    this.declaration = resolution.fn;
    this.nesting = nestingOf(this.declaration.body);
    for (const local of resolution.locals) if (local.kind === 'parameter') this.types.set(local, (local.node as { type: StaticType }).type);
  }

  /** The local an identifier reads or writes, when it is one past its declaration. */
  private local(e: Expression): Local | undefined {
    if (e.kind !== 'identifierExpression') return undefined;
    const resolved = this.resolution.uses.get(e);
    return resolved?.kind === 'local' ? resolved.local : undefined;
  }

  /** The sized type of an expression, when it has one (its arithmetic is then checked). */
  private sizeOf(e: Expression): SizedNumberName | undefined {
    return sizeOfType(this.staticType(e));
  }

  private staticType(e: Expression): StaticType | undefined {
    return staticTypeOf(e, this.world, (name) => {
      const resolved = this.resolution.uses.get(name);
      return resolved?.kind === 'local' || resolved?.kind === 'uninitialised' ? this.types.get(resolved.local) : undefined;
    });
  }

  compile(target: CompiledFunction): void {
    target.body = this.block(this.declaration.body);
    target.slotCount = this.resolution.slotCount;
    target.parameterCount = this.declaration.parameters.length;
    target.nestingDepth = this.nesting.depth;
  }

  // -------------------------------------------------------------------------------------------
  // Statements

  /**
   * The index of a statement's position in the collection's table. Statements record it as a small
   * integer rather than the span object: storing a small integer needs no write barrier.
   */
  private spanId(span: Span): number {
    this.spans.push(span);
    return this.spans.length - 1;
  }

  private block(block: BlockStatement): Exec {
    return sequence(this.blockStatements(block));
  }

  private blockStatements(block: BlockStatement): Exec[] {
    return block.body.map((s) => this.statement(s));
  }

  /** A statement in a position that is not a block (`if (x) y = 1;`). */
  private nested(statement: Statement): Exec {
    return sequence(this.nestedStatements(statement));
  }

  /** A loop body as its statements, so that a loop can run them without a sequence closure between. */
  private nestedStatements(statement: Statement): Exec[] {
    if (statement.kind === 'block') return this.blockStatements(statement);
    return [this.statement(statement)];
  }

  private statement(s: Statement): Exec {
    switch (s.kind) {
      case 'block':
        return this.block(s);
      case 'variable':
        return this.variable(s);
      case 'expressionStatement': {
        const cost = GAS.statement + nodes(s.expression);
        const span = this.spanId(s.span);
        const fused = this.fusedExpressionStatement(s.expression, cost, span);
        if (fused) return fused;
        const assigned = this.plainSlotAssignment(s.expression);
        if (assigned) {
          // `x = expression;`, the most common statement, in one closure.
          const { slot, value } = assigned;
          return (f) => {
            const st = f.st;
            if ((st.gas -= cost) < 0) throw outOfGas(st);
            st.at = span;
            f.slots[slot] = value(f);
            return NORMAL;
          };
        }
        const run = this.expression(s.expression);
        return (f) => {
          const st = f.st;
          if ((st.gas -= cost) < 0) throw outOfGas(st);
          st.at = span;
          run(f);
          return NORMAL;
        };
      }
      case 'if': {
        const consequent = this.nested(s.consequent);
        const alternate = s.alternate ? this.nested(s.alternate) : null;
        const cost = GAS.statement + nodes(s.test);
        const span = this.spanId(s.span);
        const comparison = this.simpleComparison(s.test);
        if (comparison) return comparisonBranch(comparison, consequent, alternate, cost, span);
        const test = this.expression(s.test);
        return (f) => {
          const st = f.st;
          if ((st.gas -= cost) < 0) throw outOfGas(st);
          st.at = span;
          if (test(f)) return consequent(f);
          return alternate ? alternate(f) : NORMAL;
        };
      }
      case 'while': {
        const test = this.expression(s.test);
        const [first, rest] = this.splitBody(this.nestedStatements(s.body));
        const cost = GAS.statement + nodes(s.test);
        const span = this.spanId(s.span);
        return (f) => {
          const st = f.st;
          for (;;) {
            if ((st.gas -= cost) < 0) throw outOfGas(st);
            st.at = span;
            if (!test(f)) return NORMAL;
            let completion = first(f);
            if (completion === NORMAL && rest !== null) completion = rest(f);
            if (completion === BREAK) return NORMAL;
            if (completion === RETURN) return RETURN;
          }
        };
      }
      case 'for':
        return this.forStatement(s);
      case 'forOf':
        return this.forOf(s);
      case 'break':
      case 'continue': {
        const completion = s.kind === 'break' ? BREAK : CONTINUE;
        return (f) => {
          const st = f.st;
          if ((st.gas -= GAS.statement) < 0) throw outOfGas(st);
          return completion;
        };
      }
      case 'return': {
        const argument = s.argument ? this.expression(s.argument) : constant(undefined);
        const cost = GAS.statement + nodes(s.argument);
        const span = this.spanId(s.span);
        return (f) => {
          const st = f.st;
          if ((st.gas -= cost) < 0) throw outOfGas(st);
          st.at = span;
          f.ret = argument(f);
          return RETURN;
        };
      }
      case 'throw': {
        const argument = this.expression(s.argument);
        const cost = GAS.statement + nodes(s.argument);
        const span = this.spanId(s.span);
        return (f) => {
          const st = f.st;
          if ((st.gas -= cost) < 0) throw outOfGas(st);
          st.at = span;
          const value = argument(f);
          throw new RuntimeFault(
            'function/javascript-exception',
            `JavaScript exception error: ${typeof value === 'string' ? value : describeValue(value, 1000)}`,
          );
        };
      }
    }
  }

  private variable(s: VariableDeclaration): Exec {
    // A redeclaration declares no local (the checker reports it; run unchecked, it throws as JavaScript would).
    const local = this.resolution.declared.get(s);
    const cost = GAS.statement + nodes(s.init);
    const span = this.spanId(s.span);
    if (!local) {
      return () => {
        throw jsFault(`Identifier '${s.name.name}' has already been declared`);
      };
    }
    const annotated = sizeOfType(s.typeAnnotation);
    const value = s.init ? this.expression(s.init) : constant(undefined);
    // `let x: u32 = v` (Polylang after 0.6): v is checked against the type; other annotations are the checker's.
    const init = annotated && s.init ? (f: Frame) => sizedValue(annotated, value(f), s.name.name) : value;
    this.types.set(local, s.typeAnnotation ?? (s.init ? this.staticType(s.init) : undefined));
    const slot = local.slot;
    return (f) => {
      const st = f.st;
      if ((st.gas -= cost) < 0) throw outOfGas(st);
      st.at = span;
      f.slots[slot] = init(f);
      return NORMAL;
    };
  }

  private forStatement(s: Extract<Statement, { kind: 'for' }>): Exec {
    const init: Exec | null =
      s.init === null
        ? null
        : s.init.kind === 'variable'
          ? this.variable(s.init)
          : this.statement({ kind: 'expressionStatement', expression: s.init, span: s.init.span });
    const counted = this.countedLoop(s.test, s.update);
    const test = s.test ? this.expression(s.test) : null;
    const update = s.update ? this.expression(s.update) : null;
    const body = this.nestedStatements(s.body);
    const cost = GAS.statement + nodes(s.test) + nodes(s.update);
    const span = this.spanId(s.span);
    if (counted) return countedLoop(counted, init, this.splitBody(body), cost, span);
    const run = sequence(body);
    return (f) => {
      const st = f.st;
      if (init) init(f);
      for (;;) {
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        if (test && !test(f)) return NORMAL;
        const completion = run(f);
        if (completion === BREAK) return NORMAL;
        if (completion === RETURN) return RETURN;
        if (update) update(f);
      }
    };
  }

  /** `i < bound; i++` (or `<=`, `--`) over a variable `i` and a variable or number `bound`, or null. */
  private countedLoop(test: Expression | null, update: Expression | null): CountedLoop | null {
    if (!this.fast || !test || !update || test.kind !== 'binary' || (test.operator !== '<' && test.operator !== '<=')) return null;
    if (update.kind !== 'update' || update.argument.kind !== 'identifierExpression' || test.left.kind !== 'identifierExpression') return null;
    const counter = this.local(update.argument);
    if (!counter || counter.constant || this.local(test.left) !== counter) return null;
    if (sizeOfType(this.types.get(counter))) return null; // its steps are checked
    const bound = this.operand(test.right);
    if (bound.kind === 'other') return null;
    return { slot: counter.slot, inclusive: test.operator === '<=', bound, delta: update.operator === '++' ? 1 : -1 };
  }

  /** `x < y`, `xs.length >= 3`, `n === 0`…: a comparison of a variable (or its length) with a variable or number. */
  private simpleComparison(test: Expression): SimpleComparison | null {
    if (!this.fast || test.kind !== 'binary') return null;
    const code = COMPARISONS.indexOf(test.operator as (typeof COMPARISONS)[number]);
    if (code < 0) return null;
    const left = this.operand(test.left);
    const right = this.operand(test.right);
    if ((left.kind !== 'slot' && left.kind !== 'length') || (right.kind !== 'slot' && right.kind !== 'number')) return null;
    return { code, left, right };
  }

  /**
   * Expression statements of common shapes as one closure each, doing exactly what the statement
   * closure around the general expression does (same order of evaluation, checks and gas):
   * `x += v` / `x -= v` on a variable, and `list.push(item)` on a variable. Null for anything else.
   */
  private fusedExpressionStatement(e: Expression, cost: number, span: number): Exec | null {
    if (!this.fast) return null;
    if (e.kind === 'assignment' && (e.operator === '+=' || e.operator === '-=') && e.target.kind === 'identifierExpression' && !this.sizeOf(e.target)) {
      const local = this.local(e.target);
      if (!local || local.constant) return null;
      const slot = local.slot;
      const literal = e.value.kind === 'string' || e.value.kind === 'number';
      const fixed = literal ? (e.value as { value: unknown }).value : undefined;
      const value = literal ? constant(fixed) : this.expression(e.value);
      if (e.operator === '+=') {
        return (f) => {
          const st = f.st;
          if ((st.gas -= cost) < 0) throw outOfGas(st);
          st.at = span;
          const slots = f.slots;
          const a = slots[slot];
          const b = literal ? fixed : value(f);
          if (typeof a === 'number' && typeof b === 'number') slots[slot] = a + b;
          else if (typeof a === 'string' && typeof b === 'string') {
            const length = a.length + b.length;
            if (length >= GAS.charsPerGas) allocateString(st, length);
            slots[slot] = a + b;
          } else slots[slot] = add(st, a, b);
          return NORMAL;
        };
      }
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const slots = f.slots;
        const a = slots[slot];
        const b = literal ? fixed : value(f);
        slots[slot] = typeof a === 'number' && typeof b === 'number' ? a - b : numeric('-', a, b);
        return NORMAL;
      };
    }
    if (
      e.kind === 'call' &&
      e.arguments.length === 1 &&
      e.callee.kind === 'member' &&
      e.callee.property.name === 'push' &&
      e.callee.object.kind === 'identifierExpression'
    ) {
      const receiver = this.operand(e.callee.object);
      if (receiver.kind !== 'slot') return null;
      const receiverSlot = receiver.slot;
      const item = this.operand(e.arguments[0]!);
      const itemSlot = item.kind === 'slot' ? item.slot : -1;
      const itemValue = item.kind === 'other' ? item.code : this.expression(e.arguments[0]!);
      const generic = this.genericMethodCall(
        'push',
        argumentEvaluator([itemValue]),
        printExpression(e.callee),
        (kind) => {
          const builtin = runtimeBuiltins.get(`${kind}.push`);
          return builtin && builtin.entry.kind === 'method' ? builtin.call : undefined;
        },
      );
      const pushCost = pushGas();
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const target = f.slots[receiverSlot];
        if (!Array.isArray(target)) {
          generic(f, target);
          return NORMAL;
        }
        pushOne(st, target, itemSlot >= 0 ? f.slots[itemSlot] : itemValue(f), pushCost);
        return NORMAL;
      };
    }
    return null;
  }

  /**
   * A loop body as its first statement and the rest (null when there is none): the loop calls them
   * itself, which is `sequence(body)` without the closure between. The general path keeps the sequence.
   */
  private splitBody(statements: Exec[]): [Exec, Exec | null] {
    if (!this.fast) return [sequence(statements), null];
    if (statements.length === 0) return [() => NORMAL, null];
    return [statements[0]!, statements.length === 1 ? null : sequence(statements.slice(1))];
  }

  /** `x = value` where x is a writable, initialised variable: its slot and the value's code. */
  private plainSlotAssignment(e: Expression): { slot: number; value: Eval } | null {
    if (!this.fast || e.kind !== 'assignment' || e.operator !== '=' || e.target.kind !== 'identifierExpression') return null;
    const local = this.local(e.target);
    if (!local || local.constant) return null;
    return { slot: local.slot, value: this.expression(e.value) };
  }

  private forOf(s: Extract<Statement, { kind: 'forOf' }>): Exec {
    const iterable = this.expression(s.iterable);
    const iterated = this.staticType(s.iterable);
    const forIn = s.forIn === true;
    // for…in: keys of a map with number keys are numbers (its key type), as the checker types them.
    const numericKeys = iterated?.kind === 'mapType' && (iterated.key.kind === 'sizedNumberType' || (iterated.key.kind === 'primitiveType' && iterated.key.name === 'number'));
    const local = this.resolution.declared.get(s)!;
    this.types.set(local, forIn
      ? iterated?.kind === 'mapType' ? iterated.key : undefined
      : iterated?.kind === 'arrayType' ? iterated.element : iterated?.kind === 'mapType' ? iterated.value : undefined);
    const slot = local.slot;
    const body = this.nested(s.body);
    const cost = GAS.statement + nodes(s.iterable);
    const span = this.spanId(s.span);
    const source = printExpression(s.iterable);
    return (f) => {
      const st = f.st;
      if ((st.gas -= cost) < 0) throw outOfGas(st);
      st.at = span;
      const value = iterable(f);
      let items: readonly unknown[];
      let live = false;
      if (forIn) {
        items = forInItems(st, value, source, numericKeys);
      } else if (Array.isArray(value)) {
        items = value;
        live = true; // like JavaScript's array iterator: sees elements pushed during the loop
      } else if (typeof value === 'string') {
        charge(st, Math.floor(value.length / GAS.charsPerGas));
        items = Array.from(value);
      } else if (value instanceof Uint8Array) {
        items = Array.from(value);
      } else if (typeof value === 'object' && value !== null && !(value instanceof PublicKey)) {
        // A map gives its values.
        const keys = Object.keys(value);
        charge(st, keys.length);
        items = keys.map((k) => (value as RuntimeObject)[k]);
      } else {
        throw jsFault(`${source} is not iterable`);
      }
      const count = live ? Infinity : items.length;
      for (let i = 0; i < count && i < items.length; i++) {
        if ((st.gas -= GAS.statement) < 0) throw outOfGas(st);
        st.at = span;
        f.slots[slot] = items[i];
        const completion = body(f);
        if (completion === BREAK) return NORMAL;
        if (completion === RETURN) return RETURN;
      }
      return NORMAL;
    };
  }

  // -------------------------------------------------------------------------------------------
  // Expressions

  private expression(e: Expression): Eval {
    switch (e.kind) {
      case 'number':
      case 'string':
      case 'boolean':
        return constant(e.value);
      case 'null':
        return constant(null);
      case 'this':
        return (f) => f.self;
      case 'identifierExpression':
        return this.identifier(e);
      case 'arrayLiteral': {
        const elements = e.elements.map((x) => this.expression(x));
        // Built by push from a literal `[]`, so the array is packed (map would make a holey one, on
        // which every later push and splice of the body runs slower).
        if (elements.length === 0) return () => [];
        return (f) => {
          const array: unknown[] = [];
          for (let i = 0; i < elements.length; i++) array.push(elements[i]!(f));
          return array;
        };
      }
      case 'objectLiteral': {
        const keys = e.properties.map((p) => p.key.name);
        const values = e.properties.map((p) => this.expression(p.value));
        return (f) => {
          const object = newObject();
          for (let i = 0; i < keys.length; i++) object[keys[i]!] = values[i]!(f);
          return object;
        };
      }
      case 'member':
        return this.member(e);
      case 'index': {
        const receiver = this.operand(e.object);
        const keyLocal = this.fast ? this.local(e.index) : undefined;
        if (receiver.kind === 'slot' && keyLocal) {
          // `m[k]` of two variables: both read here, without a closure for either.
          const slot = receiver.slot;
          const keySlot = keyLocal.slot;
          return (f) => {
            const slots = f.slots;
            const target = slots[slot];
            const key = slots[keySlot];
            if (typeof key === 'number' && Array.isArray(target)) return Number.isInteger(key) && key >= 0 ? target[key] : undefined;
            if (typeof key === 'string' && key.length <= 64 && isPlainMap(target)) return target[key];
            return getIndex(f.st, target, key);
          };
        }
        const index = this.expression(e.index);
        if (receiver.kind === 'slot') {
          const slot = receiver.slot;
          return (f) => {
            const target = f.slots[slot];
            const key = index(f);
            if (typeof key === 'number' && Array.isArray(target)) return Number.isInteger(key) && key >= 0 ? target[key] : undefined;
            if (typeof key === 'string' && key.length <= 64 && isPlainMap(target)) return target[key];
            return getIndex(f.st, target, key);
          };
        }
        const object = this.evalOfOperand(receiver, e.object);
        return (f) => {
          const target = object(f);
          const key = index(f);
          // Arrays by number and maps by short string keys directly; everything else in getIndex.
          if (typeof key === 'number' && Array.isArray(target)) return Number.isInteger(key) && key >= 0 ? target[key] : undefined;
          if (typeof key === 'string' && key.length <= 64 && isPlainMap(target)) return target[key];
          return getIndex(f.st, target, key);
        };
      }
      case 'call':
        return this.call(e);
      case 'unary':
        return this.unary(e);
      case 'update':
        return this.update(e);
      case 'binary':
        return this.binary(e);
      case 'logical': {
        const left = this.expression(e.left);
        const right = this.expression(e.right);
        switch (e.operator) {
          case '&&':
            return (f) => left(f) && right(f);
          case '||':
            return (f) => left(f) || right(f);
          case '??':
            return (f) => left(f) ?? right(f);
        }
        break;
      }
      case 'conditional': {
        const test = this.expression(e.test);
        const consequent = this.expression(e.consequent);
        const alternate = this.expression(e.alternate);
        return (f) => (test(f) ? consequent(f) : alternate(f));
      }
      case 'assignment':
        return this.assignment(e);
    }
    return fault(`unsupported expression`);
  }

  private identifier(e: IdentifierExpression): Eval {
    const name = e.name;
    const resolved = this.resolution.uses.get(e);
    switch (resolved?.kind) {
      case 'local': {
        const slot = resolved.local.slot;
        return (f) => f.slots[slot];
      }
      case 'uninitialised':
        return fault(`Cannot access '${name}' before initialization`);
      case 'undefined':
        return constant(undefined);
      case 'namespace':
        if (resolved.receiver === 'ctx') return (f) => f.st.ctx;
        return constant(namespaceValues[name]);
      case 'global': {
        const builtin = runtimeBuiltins.get(resolved.builtin.id);
        if (resolved.builtin.kind === 'constant' && builtin) return constant(builtinConstant(builtin));
        return fault(`${name} is a function and cannot be used as a value; call it`);
      }
      case undefined:
        return fault(`${name} is not defined`);
    }
  }

  /** The namespace an expression names, when it is `Math`, `ctx`… and not shadowed by a variable. */
  private namespaceOf(e: Expression): string | undefined {
    if (e.kind !== 'identifierExpression') return undefined;
    const resolved = this.resolution.uses.get(e);
    return resolved?.kind === 'namespace' ? resolved.receiver : undefined;
  }

  private member(e: MemberExpression): Eval {
    const name = e.property.name;
    if (e.object.kind === 'this') return (f) => f.self[name];
    const namespace = this.namespaceOf(e.object);
    if (namespace) {
      const builtin = runtimeBuiltins.get(`${namespace}.${name}`);
      if (!builtin) return constant(undefined);
      if (builtin.entry.kind === 'constant') return constant(builtinConstant(builtin));
      // `ctx.publicKey`: a property costs its node's gas, as every property of the catalogue does.
      if (builtin.entry.kind === 'property') return (f) => f.st.ctx[name];
      return fault(`${printExpression(e)} is a function and cannot be used as a value; call it`);
    }
    const receiver = this.operand(e.object);
    if (name === 'length' && receiver.kind === 'slot') {
      const slot = receiver.slot;
      return (f) => {
        const target = f.slots[slot];
        return typeof target === 'string' || Array.isArray(target) ? target.length : getMember(target, name);
      };
    }
    const object = this.evalOfOperand(receiver, e.object);
    if (name === 'length') {
      return (f) => {
        const target = object(f);
        return typeof target === 'string' || Array.isArray(target) ? target.length : getMember(target, name);
      };
    }
    return (f) => getMember(object(f), name);
  }

  private call(e: CallExpression): Eval {
    const argumentEvals = e.arguments.map((a) => this.expression(a));
    const literals = this.fast && e.arguments.every((a) => a.kind === 'number' || a.kind === 'string') ? e.arguments.map((a) => (a as { value: unknown }).value) : null;
    // Literal arguments (`xs.splice(0, 25)`, `s.slice(100)`): a fresh array of them, without a closure per argument.
    const evalArgs = literals && literals.length > 0 ? () => literals.slice() : argumentEvaluator(argumentEvals);
    const callee = e.callee;
    const calleeText = printExpression(callee);

    if (callee.kind === 'identifierExpression') {
      const resolved = this.resolution.uses.get(callee);
      if (resolved?.kind === 'local' || resolved?.kind === 'uninitialised') {
        const read = this.identifier(callee);
        return (f) => {
          read(f);
          throw jsFault(`${callee.name} is not a function`);
        };
      }
      // (A callee no local declares resolves to a global function before anything else of its name.)
      const global = resolved?.kind === 'global' ? resolved.builtin : undefined;
      const builtin = global && global.kind === 'function' ? runtimeBuiltins.get(global.id) : undefined;
      if (!builtin) {
        return fault(global ? `${callee.name} is not a function` : `${callee.name} is not defined`);
      }
      const call = builtin.call;
      return (f) => call(f.st, undefined, evalArgs(f));
    }

    if (callee.kind === 'member') {
      const name = callee.property.name;
      if (callee.object.kind === 'this') {
        const target = this.functions.get(name);
        // (A call node the walk did not see counts as deep as the deepest one.)
        const siteDepth = this.nesting.callSites.get(e) ?? this.nesting.depth;
        if (target) return (f) => invoke(f.st, f.self, target, evalArgs(f), siteDepth);
        return (f) => {
          evalArgs(f);
          throw jsFault(`${calleeText} is not a function`);
        };
      }
      const namespace = this.namespaceOf(callee.object);
      if (namespace) {
        const builtin = runtimeBuiltins.get(`${namespace}.${name}`);
        if (!builtin || builtin.entry.kind !== 'function') return fault(`${calleeText} is not a function`);
        const call = builtin.call;
        return (f) => call(f.st, undefined, evalArgs(f));
      }
      return this.methodCall(callee, evalArgs, calleeText, e.arguments, argumentEvals.length === 1 ? argumentEvals[0] : undefined);
    }

    const evaluateCallee = this.expression(callee);
    return (f) => {
      evaluateCallee(f);
      throw jsFault(`${calleeText} is not a function`);
    };
  }

  private methodCall(
    callee: MemberExpression,
    evalArgs: (f: Frame) => unknown[],
    calleeText: string,
    argumentNodes: readonly Expression[],
    singleArgument: Eval | undefined,
  ): Eval {
    const argumentCount = argumentNodes.length;
    const name = callee.property.name;
    const object = this.expression(callee.object);
    const method = (receiver: string) => {
      const builtin = runtimeBuiltins.get(`${receiver}.${name}`);
      return builtin && builtin.entry.kind === 'method' ? builtin.call : undefined;
    };
    if (name === 'push' && callee.object.kind !== 'this' && this.fast) {
      const push = method('array')!;
      const generic = this.genericMethodCall(name, evalArgs, calleeText, method);
      if (argumentCount === 1) {
        // `list.push(x)`, the common case, without the general call path; same gas, same checks.
        const cost = pushGas();
        const item = singleArgument!;
        const receiverOperand = this.operand(callee.object);
        if (receiverOperand.kind === 'slot') {
          const receiverSlot = receiverOperand.slot;
          return (f) => {
            const receiver = f.slots[receiverSlot];
            return Array.isArray(receiver) ? pushOne(f.st, receiver, item(f), cost) : generic(f, receiver);
          };
        }
        return (f) => {
          const receiver = object(f);
          return Array.isArray(receiver) ? pushOne(f.st, receiver, item(f), cost) : generic(f, receiver);
        };
      }
      return (f) => {
        const receiver = object(f);
        return Array.isArray(receiver) ? push(f.st, receiver, evalArgs(f)) : generic(f, receiver);
      };
    }
    const call = this.genericMethodCall(name, evalArgs, calleeText, method);
    const receiver = this.fast ? this.local(callee.object) : undefined;
    if (receiver) {
      const slot = receiver.slot;
      return (f) => call(f, f.slots[slot]);
    }
    return (f) => call(f, object(f));
  }

  private genericMethodCall(
    name: string,
    evalArgs: (f: Frame) => unknown[],
    calleeText: string,
    method: (receiver: string) => BuiltinCall | undefined,
  ): (f: Frame, receiver: unknown) => unknown {
    const onString = method('string');
    const onNumber = method('number');
    const onArray = method('array');
    const onPublicKey = method('publicKey');
    return (f, receiver) => {
      if (receiver === undefined || receiver === null) {
        throw jsFault(`Cannot read properties of ${String(receiver)} (reading '${name}')`);
      }
      const args = evalArgs(f);
      const call =
        typeof receiver === 'string'
          ? onString
          : typeof receiver === 'number'
            ? onNumber
            : Array.isArray(receiver)
              ? onArray
              : receiver instanceof PublicKey
                ? onPublicKey
                : undefined;
      if (!call) throw jsFault(`${calleeText} is not a function (it is called on ${kindOf(receiver)})`);
      return call(f.st, receiver, args);
    };
  }

  private unary(e: UnaryExpression): Eval {
    if (e.operator === 'delete') {
      const target = e.argument;
      if (target.kind === 'member' || target.kind === 'index') {
        const object = this.expression(target.object);
        const key = target.kind === 'member' ? constant(target.property.name) : this.expression(target.index);
        return (f) => deleteIndex(object(f), key(f));
      }
      const argument = this.expression(target);
      return (f) => {
        argument(f);
        return true;
      };
    }
    const argument = this.expression(e.argument);
    const size = e.operator === '-' ? this.sizeOf(e) : undefined;
    if (size) return (f) => sizedNegate(size, argument(f));
    switch (e.operator) {
      case '!':
        return (f) => !argument(f);
      case '-':
        return (f) => {
          const v = argument(f);
          return typeof v === 'number' ? -v : -toNumeric(v, '-');
        };
      case '+':
        return (f) => toNumeric(argument(f), '+');
      case '~':
        return (f) => ~toNumeric(argument(f), '~');
    }
  }

  /** An operand as the specialised operators take it: a variable's slot, a number literal, or code. */
  private operand(e: Expression): Operand {
    if (!this.fast) return this.otherOperand(e);
    if (e.kind === 'number') return { kind: 'number', value: e.value };
    if (e.kind === 'unary' && e.operator === '-' && e.argument.kind === 'number') return { kind: 'number', value: -e.argument.value };
    const local = this.local(e);
    if (local) return { kind: 'slot', slot: local.slot };
    if (e.kind === 'member' && e.property.name === 'length') {
      const object = this.local(e.object);
      if (object) return { kind: 'length', slot: object.slot };
    }
    return this.otherOperand(e);
  }

  /**
   * An operand of no special shape, compiled on first use. Callers try a fast shape and fall back to
   * the general path; compiling eagerly here and again there doubled the work at every level of a
   * chain like `a.b.c.d`, which made compile time exponential in the depth of an expression.
   */
  private otherOperand(e: Expression): Operand {
    let compiled: Eval | undefined;
    const compile = () => (compiled ??= this.expression(e));
    return {
      kind: 'other',
      get code() {
        return compile();
      },
    };
  }

  /** The operand's closure: the one it already compiled, or the general one. */
  private evalOfOperand(operand: Operand, e: Expression): Eval {
    return operand.kind === 'other' ? operand.code : this.expression(e);
  }

  private binary(e: BinaryExpression): Eval {
    const operator = e.operator;
    const size = this.sizeOf(e);
    if (size) return sizedBinary(operator as SizedOperator, size, this.expression(e.left), this.expression(e.right));
    if (operator === '+' && e.left.kind === 'string' && this.fast) {
      // `'k' + x`: a string on the left always concatenates (what the general `+` does, without a closure for it).
      const text = e.left.value;
      const right = this.expression(e.right);
      return (f) => add(f.st, text, right(f));
    }
    if (isFastOperator(operator)) return fastBinary(operator, this.operand(e.left), this.operand(e.right));
    const left = this.expression(e.left);
    const right = this.expression(e.right);
    switch (operator) {
      case '**':
      case '&':
      case '|':
      case '^':
      case '<<':
      case '>>':
      case '>>>':
        return (f) => numeric(operator, left(f), right(f));
      case '==':
        return (f) => looseEquals(f.st, left(f), right(f));
      case '!=':
        return (f) => !looseEquals(f.st, left(f), right(f));
    }
  }

  private assignment(e: AssignmentExpression): Eval {
    const value = this.expression(e.value);
    const size = e.operator === '=' ? undefined : this.sizeOf(e.target);
    const combine = (size && sizedCombine(e.operator, size)) || compoundOperator(e.operator);
    const target = e.target;

    if (target.kind === 'identifierExpression') {
      const resolved = this.resolution.uses.get(target);
      if (resolved?.kind !== 'local' && resolved?.kind !== 'uninitialised') {
        // `undefined`, a namespace or a built-in: there, but not assignable.
        return fault(resolved ? `Cannot assign to ${target.name}` : `${target.name} is not defined`);
      }
      if (resolved.kind === 'uninitialised') return fault(`Cannot access '${target.name}' before initialization`);
      if (resolved.local.constant) return fault(`Assignment to constant variable '${target.name}'`);
      const slot = resolved.local.slot;
      if (!combine) return (f) => (f.slots[slot] = value(f));
      if (size) return (f) => (f.slots[slot] = combine(f.st, f.slots[slot], value(f)));
      if (e.operator === '+=') {
        return (f) => {
          const a = f.slots[slot];
          const b = value(f);
          if (typeof a === 'number' && typeof b === 'number') return (f.slots[slot] = a + b);
          if (typeof a === 'string' && typeof b === 'string') {
            const length = a.length + b.length;
            if (length >= GAS.charsPerGas) allocateString(f.st, length);
            return (f.slots[slot] = a + b);
          }
          return (f.slots[slot] = add(f.st, a, b));
        };
      }
      if (e.operator === '-=') {
        return (f) => {
          const a = f.slots[slot];
          const b = value(f);
          return (f.slots[slot] = typeof a === 'number' && typeof b === 'number' ? a - b : numeric('-', a, b));
        };
      }
      return (f) => (f.slots[slot] = combine(f.st, f.slots[slot], value(f)));
    }

    if (target.kind === 'member' && this.namespaceOf(target.object)) {
      return fault(`Cannot assign to ${printExpression(target)}`);
    }
    const object = this.expression(target.object);
    const key = target.kind === 'member' ? constant(target.property.name) : this.expression(target.index);
    if (target.kind === 'member' && target.object.kind === 'this' && !combine) {
      const name = target.property.name;
      return (f) => {
        const self = f.self;
        const v = value(f);
        if (!(name in self)) setIndex(f.st, self, name, v);
        else self[name] = v;
        return v;
      };
    }
    const objectLocal = this.fast && target.kind === 'index' ? this.local(target.object) : undefined;
    const keyLocal = this.fast && target.kind === 'index' ? this.local(target.index) : undefined;
    if (!combine && objectLocal && keyLocal) {
      // `m[k] = v` of two variables: both read (before v, as above) without a closure for either.
      const objectSlot = objectLocal.slot;
      const keySlot = keyLocal.slot;
      return (f) => {
        const o = f.slots[objectSlot];
        const k = f.slots[keySlot];
        const v = value(f);
        if (typeof k === 'string' && k.length <= 64 && isPlainMap(o) && k in o) o[k] = v;
        else setIndex(f.st, o, k, v);
        return v;
      };
    }
    if (!combine) {
      return (f) => {
        const o = object(f);
        const k = key(f);
        const v = value(f);
        // Updating an existing short key of a writable map needs no allocation gas: set it directly.
        if (typeof k === 'string' && k.length <= 64 && isPlainMap(o) && k in o) o[k] = v;
        else setIndex(f.st, o, k, v);
        return v;
      };
    }
    return (f) => {
      const o = object(f);
      const k = key(f);
      const v = combine(f.st, getIndex(f.st, o, k), value(f));
      setIndex(f.st, o, k, v);
      return v;
    };
  }

  private update(e: UpdateExpression): Eval {
    const delta = e.operator === '++' ? 1 : -1;
    const prefix = e.prefix;
    const target = e.argument;
    const size = this.sizeOf(target);
    const step = size ? (old: unknown) => sizedStep(size, old, delta, e.operator) : undefined;
    if (target.kind === 'identifierExpression') {
      const resolved = this.resolution.uses.get(target);
      if (resolved?.kind !== 'local' && resolved?.kind !== 'uninitialised') return fault(`${target.name} is not defined`);
      if (resolved.kind === 'uninitialised') return fault(`Cannot access '${target.name}' before initialization`);
      if (resolved.local.constant) return fault(`Assignment to constant variable '${target.name}'`);
      const slot = resolved.local.slot;
      return (f) => {
        const current = f.slots[slot];
        const old = typeof current === 'number' ? current : toNumeric(current, e.operator);
        const next = step ? step(old) : old + delta;
        f.slots[slot] = next;
        return prefix ? next : old;
      };
    }
    if (target.kind === 'member' || target.kind === 'index') {
      const object = this.expression(target.object);
      const key = target.kind === 'member' ? constant(target.property.name) : this.expression(target.index);
      return (f) => {
        const o = object(f);
        const k = key(f);
        const old = toNumeric(getIndex(f.st, o, k), e.operator);
        const next = step ? step(old) : old + delta;
        setIndex(f.st, o, k, next);
        return prefix ? next : old;
      };
    }
    return fault(`Invalid left-hand side expression in ${prefix ? 'prefix' : 'postfix'} operation`);
  }
}

type Combine = (st: ExecState, current: unknown, value: unknown) => unknown;

/** `a op b` where the result is sized: checked against the type's range (a `+` with a string still concatenates). */
function sizedBinary(operator: SizedOperator, size: SizedNumberName, left: Eval, right: Eval): Eval {
  if (operator === '+') {
    return (f) => {
      const a = left(f);
      const b = right(f);
      return typeof a === 'string' || typeof b === 'string' ? add(f.st, a, b) : sizedArithmetic('+', size, a, b);
    };
  }
  return (f) => sizedArithmetic(operator, size, left(f), right(f));
}

/** `x op= v` on a sized target, or null when the operator is not sized arithmetic (`&=` …). */
function sizedCombine(operator: AssignmentExpression['operator'], size: SizedNumberName): Combine | null {
  const op = operator.slice(0, -1);
  if (!SIZED_ARITHMETIC.has(op)) return null;
  if (op === '+') return (st, a, b) => (typeof a === 'string' || typeof b === 'string' ? add(st, a, b) : sizedArithmetic('+', size, a, b));
  return (_st, a, b) => sizedArithmetic(op as SizedOperator, size, a, b);
}

/** The gas of `push` with one item, from the catalogue. */
function pushGas(): number {
  const gas = runtimeBuiltins.get('array.push')!.entry.gas;
  return gas.base + (gas.perUnit ?? 0);
}

/** `array.push(value)` as the built-in does it (gas first, then the length cap), for one item. */
function pushOne(st: ExecState, array: unknown[], value: unknown, cost: number): number {
  if ((st.gas -= cost) < 0) throw outOfGas(st);
  if (array.length >= st.limits.maxArrayLength) {
    throw limitFault(`array too long: ${array.length + 1} elements (the limit is ${st.limits.maxArrayLength})`);
  }
  return array.push(value);
}

/** A map, inline object or record (not an array, bytes or key), without calling out of the closure. */
function isPlainMap(value: unknown): value is RuntimeObject {
  // Runtime objects are the only values without Object.prototype in their chain (values.ts); `instanceof`
  // compiles to a walk of the chain, where Object.getPrototypeOf of a dictionary-mode object is a call.
  return typeof value === 'object' && value !== null && !(value instanceof Object);
}

function argumentEvaluator(args: Eval[]): (f: Frame) => unknown[] {
  switch (args.length) {
    case 0:
      return () => [];
    case 1: {
      const [a] = args as [Eval];
      return (f) => [a(f)];
    }
    case 2: {
      const [a, b] = args as [Eval, Eval];
      return (f) => [a(f), b(f)];
    }
    default:
      return (f) => {
        const values = new Array<unknown>(args.length);
        for (let i = 0; i < args.length; i++) values[i] = args[i]!(f);
        return values;
      };
  }
}

function compoundOperator(operator: AssignmentExpression['operator']): Combine | null {
  switch (operator) {
    case '=':
      return null;
    case '+=':
      return (st, a, b) => (typeof a === 'number' && typeof b === 'number' ? a + b : add(st, a, b));
    case '-=':
    case '*=':
    case '/=':
    case '%=':
    case '**=': {
      const op = operator.slice(0, -1) as NumericOperator;
      return (_st, a, b) => numeric(op, a, b);
    }
  }
}

const COMPARISONS = ['<', '<=', '>', '>=', '===', '!=='] as const;

interface SimpleComparison {
  /** Index into COMPARISONS. */
  code: number;
  left: Extract<Operand, { kind: 'slot' | 'length' }>;
  right: Extract<Operand, { kind: 'slot' | 'number' }>;
}

/** An `if` over a simple comparison, with the comparison inlined (same gas and results as the general `if`). */
function comparisonBranch(comparison: SimpleComparison, consequent: Exec, alternate: Exec | null, cost: number, span: number): Exec {
  const { code, left, right } = comparison;
  const leftSlot = left.slot;
  const leftLength = left.kind === 'length';
  const rightSlot = right.kind === 'slot' ? right.slot : -1;
  const rightValue = right.kind === 'number' ? right.value : 0;
  const operator = COMPARISONS[code]!;
  if (leftLength && right.kind === 'number' && code <= 3) return lengthBranch(code, leftSlot, rightValue, consequent, alternate, cost, span);
  return (f) => {
    const st = f.st;
    if ((st.gas -= cost) < 0) throw outOfGas(st);
    st.at = span;
    const slots = f.slots;
    let a = slots[leftSlot];
    if (leftLength) a = typeof a === 'string' || Array.isArray(a) ? a.length : getMember(a, 'length');
    const b = rightSlot >= 0 ? slots[rightSlot] : rightValue;
    let go: boolean;
    if (typeof a === 'number' && typeof b === 'number') {
      switch (code) {
        case 0: go = a < b; break;
        case 1: go = a <= b; break;
        case 2: go = a > b; break;
        case 3: go = a >= b; break;
        case 4: go = a === b; break;
        default: go = a !== b;
      }
    } else if (code === 4) {
      go = strictEquals(st, a, b);
    } else if (code === 5) {
      go = !strictEquals(st, a, b);
    } else {
      go = compare(st, operator as '<' | '<=' | '>' | '>=', a, b);
    }
    if (go) return consequent(f);
    return alternate ? alternate(f) : NORMAL;
  };
}

/**
 * `if (xs.length > n)` (or `<`, `<=`, `>=`), the guard of most loops that trim a list or a string: one
 * closure per operator, so that each compares without a switch (same gas and results as comparisonBranch).
 */
function lengthBranch(code: number, slot: number, bound: number, consequent: Exec, alternate: Exec | null, cost: number, span: number): Exec {
  const otherwise = alternate ?? (() => NORMAL);
  switch (code) {
    case 0:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a < bound : compare(st, '<', a, bound)) ? consequent(f) : otherwise(f);
      };
    case 1:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a <= bound : compare(st, '<=', a, bound)) ? consequent(f) : otherwise(f);
      };
    case 2:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a > bound : compare(st, '>', a, bound)) ? consequent(f) : otherwise(f);
      };
    default:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a >= bound : compare(st, '>=', a, bound)) ? consequent(f) : otherwise(f);
      };
  }
}

interface CountedLoop {
  slot: number;
  inclusive: boolean;
  bound: Operand;
  delta: number;
}

/** A `for` loop over a counter, with its test and update inlined (same gas and results as the general loop). */
function countedLoop(loop: CountedLoop, init: Exec | null, [first, rest]: [Exec, Exec | null], cost: number, span: number): Exec {
  const { slot, inclusive, bound, delta } = loop;
  const boundSlot = bound.kind === 'slot' ? bound.slot : -1;
  const boundValue = bound.kind === 'number' ? bound.value : 0;
  const operator = inclusive ? '<=' : '<';
  return (f) => {
    const st = f.st;
    const slots = f.slots;
    if (init) init(f);
    for (;;) {
      if ((st.gas -= cost) < 0) throw outOfGas(st);
      st.at = span;
      const a = slots[slot];
      const b = boundSlot >= 0 ? slots[boundSlot] : boundValue;
      const go = typeof a === 'number' && typeof b === 'number' ? (inclusive ? a <= b : a < b) : compare(st, operator, a, b);
      if (!go) return NORMAL;
      let completion = first(f);
      if (completion === NORMAL && rest !== null) completion = rest(f);
      if (completion === BREAK) return NORMAL;
      if (completion === RETURN) return RETURN;
      const current = slots[slot];
      slots[slot] = (typeof current === 'number' ? current : toNumeric(current, delta > 0 ? '++' : '--')) + delta;
    }
  };
}

function sequence(statements: Exec[]): Exec {
  switch (statements.length) {
    case 0:
      return () => NORMAL;
    case 1:
      return statements[0]!;
    case 2: {
      const [a, b] = statements as [Exec, Exec];
      return (f) => {
        const completion = a(f);
        return completion !== NORMAL ? completion : b(f);
      };
    }
    default:
      return (f) => {
        for (let i = 0; i < statements.length; i++) {
          const completion = statements[i]!(f);
          if (completion !== NORMAL) return completion;
        }
        return NORMAL;
      };
  }
}
