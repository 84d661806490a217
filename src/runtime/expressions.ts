// The compiler of expressions to closures (`(frame) => value`). Names come resolved (src/lang/resolver.ts):
// a variable is a slot of the frame, so a read is `frame.slots[i]`, and a use before its declaration
// (JavaScript's temporal dead zone) is known statically. Expressions pay no gas of their own: the
// statement around them paid for their nodes (gas-costs.ts); calls of built-ins and allocations pay more,
// by size, where they happen. Binary operators on numbers are specialised by operand shape (binary.ts).

import {
  SIZED_ARITHMETIC,
  printExpression,
  type AssignmentExpression,
  type BinaryExpression,
  type CallExpression,
  type Expression,
  type FunctionDeclaration,
  type FunctionResolution,
  type IdentifierExpression,
  type Local,
  type MemberExpression,
  type SizedNumberName,
  type UnaryExpression,
  type UpdateExpression,
} from '../lang/index.ts';
import { fastBinary, isFastOperator, type Operand } from './binary.ts';
import { runtimeBuiltins, type BuiltinCall, type RuntimeBuiltin } from './builtins.ts';
import { jsFault } from './errors.ts';
import { invoke, type CompiledFunction, type Eval, type Frame } from './frame.ts';
import { isPlainMap, pushOne, sliceCall, spliceCall } from './fused-shapes.ts';
import { pushGas, spliceGas, stringSliceGas } from './gas-costs.ts';
import { GAS } from './limits.ts';
import { NESTED_OPERATORS, nestedOnLeft, nestedOnRight, type NestedOperator, type SlotNumber } from './nested-arithmetic.ts';
import { nestingOf, type Nesting } from './nesting.ts';
import {
  add,
  deleteIndex,
  getIndex,
  getMember,
  looseEquals,
  numeric,
  setIndex,
  toNumeric,
  type NumericOperator,
} from './operations.ts';
import { sizedArithmetic, sizedNegate, sizedStep, type SizedOperator } from './sized-arithmetic.ts';
import { sizeOfType, staticTypeOf, type StaticType, type StaticWorld } from './sized-types.ts';
import { allocateString, type ExecState } from './state.ts';
import { PublicKey, kindOf, newObject, type RuntimeObject } from './values.ts';

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

export function fault(message: string): Eval {
  return () => {
    throw jsFault(message);
  };
}

export function constant(value: unknown): Eval {
  return () => value;
}

export class ExpressionCompiler {
  protected readonly declaration: FunctionDeclaration;
  protected readonly nesting: Nesting;
  /** What is known of each local's type (sized-types.ts), from its declaration once compiled: decides
   *  whether its arithmetic is sized. */
  protected readonly types = new Map<Local, StaticType | undefined>();

  constructor(
    protected readonly functions: ReadonlyMap<string, CompiledFunction>,
    /** The function's names tied to their declarations, and its locals' slots. */
    protected readonly resolution: FunctionResolution,
    /** The declarations the types of expressions come from (sized arithmetic). */
    protected readonly world: StaticWorld,
    /** Fused closures for common shapes; false compiles everything the general way (for tests). */
    protected readonly fast: boolean,
  ) {
    this.declaration = resolution.fn;
    this.nesting = nestingOf(this.declaration.body);
    for (const local of resolution.locals) if (local.kind === 'parameter') this.types.set(local, (local.node as { type: StaticType }).type);
  }

  /** The local an identifier reads or writes, when it is one past its declaration. */
  protected local(e: Expression): Local | undefined {
    if (e.kind !== 'identifierExpression') return undefined;
    const resolved = this.resolution.uses.get(e);
    return resolved?.kind === 'local' ? resolved.local : undefined;
  }

  /** The sized type of an expression, when it has one (its arithmetic is then checked). */
  protected sizeOf(e: Expression): SizedNumberName | undefined {
    return sizeOfType(this.staticType(e));
  }

  protected staticType(e: Expression): StaticType | undefined {
    return staticTypeOf(e, this.world, (name) => {
      const resolved = this.resolution.uses.get(name);
      return resolved?.kind === 'local' || resolved?.kind === 'uninitialised' ? this.types.get(resolved.local) : undefined;
    });
  }

  protected expression(e: Expression): Eval {
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

  protected identifier(e: IdentifierExpression): Eval {
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
  protected namespaceOf(e: Expression): string | undefined {
    if (e.kind !== 'identifierExpression') return undefined;
    const resolved = this.resolution.uses.get(e);
    return resolved?.kind === 'namespace' ? resolved.receiver : undefined;
  }

  protected member(e: MemberExpression): Eval {
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

  protected call(e: CallExpression): Eval {
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
      return this.methodCall(callee, evalArgs, calleeText, e.arguments, argumentEvals);
    }

    const evaluateCallee = this.expression(callee);
    return (f) => {
      evaluateCallee(f);
      throw jsFault(`${calleeText} is not a function`);
    };
  }

  protected methodCall(
    callee: MemberExpression,
    evalArgs: (f: Frame) => unknown[],
    calleeText: string,
    argumentNodes: readonly Expression[],
    argumentEvals: readonly Eval[],
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
        const item = argumentEvals[0]!;
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
    const splice = name === 'splice' && argumentCount === 2 && this.fast ? spliceGas() : null;
    if (splice) {
      // `list.splice(start, count)`, the trim of most lists, without the general call path; same gas, same checks.
      const receiverOperand = this.operand(callee.object);
      const [start, count] = argumentNodes as [Expression, Expression];
      const literals = start.kind === 'number' && count.kind === 'number' ? ([start.value, count.value] as const) : null;
      const receiverSlot = receiverOperand.kind === 'slot' ? receiverOperand.slot : -1;
      return spliceCall(receiverSlot, object, argumentEvals[0]!, argumentEvals[1]!, literals, call, splice.base, splice.perElement);
    }
    const receiver = this.fast ? this.local(callee.object) : undefined;
    const slice = receiver && name === 'slice' && (argumentCount === 1 || argumentCount === 2) ? stringSliceGas() : null;
    if (receiver && slice) {
      // `text.slice(start[, end])` on a variable, the cut of most strings, without the general call path; same gas, same checks.
      return sliceCall(receiver.slot, argumentEvals[0]!, argumentEvals[1] ?? null, call, slice.base, slice.perChar);
    }
    if (receiver) {
      const slot = receiver.slot;
      return (f) => call(f, f.slots[slot]);
    }
    return (f) => call(f, object(f));
  }

  protected genericMethodCall(
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

  protected unary(e: UnaryExpression): Eval {
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
  protected operand(e: Expression): Operand {
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
  protected otherOperand(e: Expression): Operand {
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
  protected evalOfOperand(operand: Operand, e: Expression): Eval {
    return operand.kind === 'other' ? operand.code : this.expression(e);
  }

  protected binary(e: BinaryExpression): Eval {
    const operator = e.operator;
    const size = this.sizeOf(e);
    if (size) return sizedBinary(operator as SizedOperator, size, this.expression(e.left), this.expression(e.right));
    if (operator === '+' && e.left.kind === 'string' && this.fast) {
      // `'k' + x`: a string on the left always concatenates (what the general `+` does, without a closure for it).
      const text = e.left.value;
      const right = this.expression(e.right);
      return (f) => add(f.st, text, right(f));
    }
    if (isFastOperator(operator)) {
      const nested = this.nestedArithmetic(e);
      if (nested) return nested;
      return fastBinary(operator, this.operand(e.left), this.operand(e.right));
    }
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

  /**
   * `a + i * 3`, `(i % 7) - b`…: an arithmetic operator with an operand `x op n` (a variable and a number),
   * which its closure computes without a call (nested-arithmetic.ts). Null for anything else.
   */
  protected nestedArithmetic(e: BinaryExpression): Eval | null {
    const operator = NESTED_OPERATORS.indexOf(e.operator as NestedOperator);
    if (!this.fast || operator < 0) return null;
    const right = this.slotNumber(e.right);
    if (right) return nestedOnRight(e.operator as NestedOperator, this.operand(e.left), right);
    const left = this.slotNumber(e.left);
    if (left) return nestedOnLeft(e.operator as NestedOperator, left, this.operand(e.right));
    return null;
  }

  /** `x op n` under an arithmetic operator, with x a variable and n a number literal, when unsized. */
  protected slotNumber(e: Expression): SlotNumber | null {
    if (e.kind !== 'binary' || this.sizeOf(e)) return null;
    const op = NESTED_OPERATORS.indexOf(e.operator as NestedOperator);
    if (op < 0) return null;
    const local = this.local(e.left);
    if (!local) return null;
    const value = this.operand(e.right);
    return value.kind === 'number' ? { slot: local.slot, op, value: value.value } : null;
  }

  protected assignment(e: AssignmentExpression): Eval {
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

  protected update(e: UpdateExpression): Eval {
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

export function argumentEvaluator(args: Eval[]): (f: Frame) => unknown[] {
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
