// Runtime errors are data: a reason (Polybase's reason codes where they exist) and a message. Inside
// the interpreter a failure is thrown as a `RuntimeFault` and `execute` turns it into a
// `RuntimeError` result; nothing else ever escapes `execute`.

import type { Span } from '../lang/index.ts';

export type RuntimeErrorReason =
  | 'function/not-found'
  | 'function/invalid-args'
  | 'function/collection-error'
  | 'function/javascript-exception'
  | 'function/out-of-gas'
  | 'function/limit-exceeded'
  | 'function/arithmetic-error'
  | 'function/invalid-return'
  | 'constructor/no-id-assigned'
  | 'record/id-modified'
  | 'record/missing-field'
  | 'record/invalid-field'
  | 'record/not-found';

export interface RuntimeError {
  reason: RuntimeErrorReason;
  message: string;
  /** Where in the schema text the failing statement is, when the failure happened inside a body. */
  span?: Span;
  line?: number;
  column?: number;
}

export class RuntimeFault extends Error {
  constructor(
    readonly reason: RuntimeErrorReason,
    message: string,
  ) {
    super(message);
  }

  toError(): RuntimeError {
    return { reason: this.reason, message: this.message };
  }
}

/** A JavaScript-level fault in a body (what V8 would have thrown as a TypeError or RangeError). */
export function jsFault(message: string): RuntimeFault {
  return new RuntimeFault('function/javascript-exception', `JavaScript exception error: ${message}`);
}

export function collectionError(message: string): RuntimeFault {
  return new RuntimeFault('function/collection-error', `collection function error: ${message}`);
}

export function limitFault(message: string): RuntimeFault {
  return new RuntimeFault('function/limit-exceeded', message);
}

export function invalidArgs(message: string): RuntimeFault {
  return new RuntimeFault('function/invalid-args', message);
}

/** Short text of any runtime value for messages: JSON-like, cut to `max` characters. */
export function describeValue(value: unknown, max = 100): string {
  let text: string;
  try {
    text = previewValue(value, max);
  } catch {
    text = typeof value;
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function previewValue(value: unknown, budget: number): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value.length > budget ? value.slice(0, budget) : value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (value === null || typeof value !== 'object') return String(value);
  if (typeof (value as { toHex?: unknown }).toHex === 'function') return (value as { toHex(): string }).toHex();
  if (value instanceof Uint8Array) return `bytes(${value.length})`;
  if (Array.isArray(value)) {
    const parts: string[] = [];
    let used = 2;
    for (const element of value) {
      if (used > budget) break;
      const part = previewValue(element, budget - used);
      parts.push(part);
      used += part.length + 1;
    }
    return `[${parts.join(',')}${parts.length < value.length ? ',…' : ''}]`;
  }
  const parts: string[] = [];
  let used = 2;
  for (const key of Object.keys(value)) {
    if (used > budget) break;
    const part = `${JSON.stringify(key)}:${previewValue((value as Record<string, unknown>)[key], budget - used)}`;
    parts.push(part);
    used += part.length + 1;
  }
  return `{${parts.join(',')}}`;
}
