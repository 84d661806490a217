// The compiler of one function's body: statements to closures (`(frame) => completion`), on top of the
// expression compiler (expressions.ts). Frames and calls are in frame.ts, the static gas of expressions in
// gas-costs.ts, the fused closures for common statement shapes in fused-shapes.ts.
//
// Each statement pays its gas on entry: one for the statement and one per expression node in it
// (loops pay their test and update on every iteration), so metering is one subtraction per
// statement. Calls of built-ins and allocations pay more, by size, where they happen.

import {
  printExpression,
  type BlockStatement,
  type Expression,
  type FunctionResolution,
  type Span,
  type Statement,
  type VariableDeclaration,
} from '../lang/index.ts';
import { runtimeBuiltins } from './builtins.ts';
import { RuntimeFault, describeValue, jsFault } from './errors.ts';
import { argumentEvaluator, constant, ExpressionCompiler } from './expressions.ts';
import { LOOP_COPY, withLoopCopy } from './counted-loops.ts';
import { forInItems } from './for-in.ts';
import { sequence, type CompiledFunction, type Eval, type Exec, type Frame } from './frame.ts';
import { COMPARISONS, addToSlot, callStatement, comparisonBranch, countedLoop, pushStatement, subtractFromSlot, type CountedLoop, type SimpleComparison } from './fused-shapes.ts';
import { nodes, pushGas } from './gas-costs.ts';
import { GAS } from './limits.ts';
import { sizedValue } from './sized-arithmetic.ts';
import { sizeOfType, type StaticWorld } from './sized-types.ts';
import { charge, outOfGas } from './state.ts';
import { PublicKey, type RuntimeObject } from './values.ts';

export { invoke, type CompiledFunction } from './frame.ts';

export class FunctionCompiler extends ExpressionCompiler {
  constructor(
    functions: ReadonlyMap<string, CompiledFunction>,
    /** The function's names tied to their declarations, and its locals' slots. */
    resolution: FunctionResolution,
    /** The collection's statement positions: a running statement records its index here (`st.at`). */
    private readonly spans: Span[],
    /** The declarations the types of expressions come from (sized arithmetic). */
    world: StaticWorld,
    /** Fused closures for common shapes; false compiles everything the general way (for tests). */
    fast = true,
  ) {
    super(functions, resolution, world, fast);
  }

  compile(target: CompiledFunction): void {
    target.body = this.block(this.declaration.body);
    target.slotCount = this.resolution.slotCount;
    target.parameterCount = this.declaration.parameters.length;
    target.nestingDepth = this.nesting.depth;
  }

  /**
   * The index of a statement's position in the collection's table. Statements record it as a small
   * integer rather than the span object: storing a small integer needs no write barrier.
   */
  protected spanId(span: Span): number {
    this.spans.push(span);
    return this.spans.length - 1;
  }

  protected block(block: BlockStatement): Exec {
    return sequence(this.blockStatements(block));
  }

  protected blockStatements(block: BlockStatement): Exec[] {
    return block.body.map((s) => this.statement(s));
  }

  /** A statement in a position that is not a block (`if (x) y = 1;`). */
  protected nested(statement: Statement): Exec {
    return sequence(this.nestedStatements(statement));
  }

  /** A loop body as its statements, so that a loop can run them without a sequence closure between. */
  protected nestedStatements(statement: Statement): Exec[] {
    if (statement.kind === 'block') return this.blockStatements(statement);
    return [this.statement(statement)];
  }

  protected statement(s: Statement): Exec {
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
          return withLoopCopy(LOOP_COPY.assign, (f) => {
            const st = f.st;
            if ((st.gas -= cost) < 0) throw outOfGas(st);
            st.at = span;
            f.slots[slot] = value(f);
            return 0 /* NORMAL */;
          });
        }
        const run = this.expression(s.expression);
        return (f) => {
          const st = f.st;
          if ((st.gas -= cost) < 0) throw outOfGas(st);
          st.at = span;
          run(f);
          return 0 /* NORMAL */;
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
          return alternate ? alternate(f) : 0 /* NORMAL */;
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
            if (!test(f)) return 0 /* NORMAL */;
            let completion = first(f);
            if (completion === 0 /* NORMAL */ && rest !== null) completion = rest(f);
            if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
            if (completion === 3 /* RETURN */) return 3 /* RETURN */;
          }
        };
      }
      case 'for':
        return this.forStatement(s);
      case 'forOf':
        return this.forOf(s);
      case 'break':
      case 'continue': {
        const completion = s.kind === 'break' ? 1 /* BREAK */ : 2 /* CONTINUE */;
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
          return 3 /* RETURN */;
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

  protected variable(s: VariableDeclaration): Exec {
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
      return 0 /* NORMAL */;
    };
  }

  protected forStatement(s: Extract<Statement, { kind: 'for' }>): Exec {
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
        if (test && !test(f)) return 0 /* NORMAL */;
        const completion = run(f);
        if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
        if (completion === 3 /* RETURN */) return 3 /* RETURN */;
        if (update) update(f);
      }
    };
  }

  /** `i < bound; i++` (or `<=`, `--`) over a variable `i` and a variable or number `bound`, or null. */
  protected countedLoop(test: Expression | null, update: Expression | null): CountedLoop | null {
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
  protected simpleComparison(test: Expression): SimpleComparison | null {
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
   * `x += v` / `x -= v` on a variable, `list.push(item)` on a variable and `list.splice(start, count)`. Null
   * for anything else.
   */
  protected fusedExpressionStatement(e: Expression, cost: number, span: number): Exec | null {
    if (!this.fast) return null;
    if (e.kind === 'assignment' && (e.operator === '+=' || e.operator === '-=') && e.target.kind === 'identifierExpression' && !this.sizeOf(e.target)) {
      const local = this.local(e.target);
      if (!local || local.constant) return null;
      const slot = local.slot;
      const literal = e.value.kind === 'string' || e.value.kind === 'number';
      const fixed = literal ? (e.value as { value: unknown }).value : undefined;
      const value = literal ? constant(fixed) : this.expression(e.value);
      return e.operator === '+=' ? addToSlot(slot, literal, fixed, value, cost, span) : subtractFromSlot(slot, literal, fixed, value, cost, span);
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
      return pushStatement(receiverSlot, itemSlot, itemValue, generic, pushCost, cost, span);
    }
    if (e.kind === 'call' && e.arguments.length === 2 && e.callee.kind === 'member' && e.callee.property.name === 'splice' && e.callee.object.kind !== 'this') {
      // `list.splice(start, count);`: the statement around the call's own fused closure (expressions.ts).
      return callStatement(this.expression(e), cost, span);
    }
    return null;
  }

  /**
   * A loop body as its first statement and the rest (null when there is none): the loop calls them
   * itself, which is `sequence(body)` without the closure between. The general path keeps the sequence.
   */
  protected splitBody(statements: Exec[]): [Exec, Exec | null] {
    if (!this.fast) return [sequence(statements), null];
    if (statements.length === 0) return [() => 0 /* NORMAL */, null];
    return [statements[0]!, statements.length === 1 ? null : sequence(statements.slice(1))];
  }

  /** `x = value` where x is a writable, initialised variable: its slot and the value's code. */
  protected plainSlotAssignment(e: Expression): { slot: number; value: Eval } | null {
    if (!this.fast || e.kind !== 'assignment' || e.operator !== '=' || e.target.kind !== 'identifierExpression') return null;
    const local = this.local(e.target);
    if (!local || local.constant) return null;
    return { slot: local.slot, value: this.expression(e.value) };
  }

  protected forOf(s: Extract<Statement, { kind: 'forOf' }>): Exec {
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
        if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
        if (completion === 3 /* RETURN */) return 3 /* RETURN */;
      }
      return 0 /* NORMAL */;
    };
  }
}
