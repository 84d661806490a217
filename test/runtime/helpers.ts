// Test helpers: compile schema text and call functions with short names.
import { checkSchema, hasErrors, parse, renderText } from '../../src/lang/index.ts';
import {
  compileCollection,
  execute,
  type CompiledCollection,
  type ExecuteResult,
  type ExecutionContext,
  type ExecutionLimits,
  type Transition,
  type WireRecord,
} from '../../src/runtime/index.ts';

/** Parses (and, unless `check` is false, type-checks) a schema and compiles one collection as `ns/<Name>`. */
export function load(text: string, name: string, options: { check?: boolean } = {}): CompiledCollection {
  if (options.check !== false) {
    const checked = checkSchema(text, 'test.polylang');
    if (!checked.program || hasErrors(checked.diagnostics)) {
      throw new Error(`schema has errors:\n${checked.diagnostics.map((d) => renderText(d, checked.source)).join('\n')}`);
    }
    return compileCollection(checked, name, { collectionId: `ns/${name}` });
  }
  const parsed = parse(text, 'test.polylang');
  if (!parsed.program || hasErrors(parsed.diagnostics)) {
    throw new Error(`schema does not parse:\n${parsed.diagnostics.map((d) => renderText(d, parsed.source)).join('\n')}`);
  }
  return compileCollection(parsed, name, { collectionId: `ns/${name}` });
}

/** A collection with one function `f` whose body is `body` (not type-checked: runtime semantics only). */
export function body(text: string, options: { params?: string; returns?: string; fields?: string } = {}): CompiledCollection {
  const schema = `collection T {
  id: string;
  ${options.fields ?? ''}
  f (${options.params ?? ''})${options.returns ? `: ${options.returns}` : ''} {
${text}
  }
}`;
  return load(schema, 'T', { check: false });
}

export function ok(result: ExecuteResult): Transition {
  if (!result.ok) throw new Error(`expected success, got ${result.error.reason}: ${result.error.message}`);
  return result.transition;
}

export function fails(result: ExecuteResult): { reason: string; message: string } {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.transition)}`);
  return result.error;
}

/** Runs `f` of a `body(...)` collection on `{id: 'r'}` and returns its return value. */
export function evaluate(text: string, args: unknown[] = [], options: { params?: string; limits?: Partial<ExecutionLimits>; ctx?: ExecutionContext } = {}): unknown {
  const collection = body(text, { params: options.params });
  return ok(execute(collection, 'f', { id: 'r' }, args, options.ctx, options.limits)).returnValue;
}

export function call(
  collection: CompiledCollection,
  fn: string,
  snapshot: WireRecord | null,
  args: unknown[] = [],
  ctx: ExecutionContext = {},
  limits?: Partial<ExecutionLimits>,
): ExecuteResult {
  return execute(collection, fn, snapshot, args, ctx, limits);
}
