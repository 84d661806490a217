// Block scopes of a function body: `let`/`const` are visible in their whole block but may only be
// used after their declaration (JavaScript's "temporal dead zone": `let x = x + 1` reads the new,
// uninitialised `x`, not an outer one). Parameters live in the function's outermost scope, so
// `let x` beside a parameter `x` is a redeclaration, as in JavaScript.

import type { Binding } from './checked.ts';

/** A name declared later in its block: using it now is an error. */
export const UNINITIALISED = 'uninitialised';

export class Scope {
  // Created on first use: most blocks declare nothing.
  private names: Map<string, Binding> | undefined;
  private reserved: Set<string> | undefined;

  constructor(readonly parent: Scope | null = null) {}

  lookup(name: string): Binding | typeof UNINITIALISED | undefined {
    const binding = this.names?.get(name);
    if (binding) return binding;
    if (this.reserved?.has(name)) return UNINITIALISED;
    return this.parent?.lookup(name);
  }

  declaredHere(name: string): boolean {
    return this.names?.has(name) ?? false;
  }

  /** Marks a name that a declaration later in this block will bind. */
  reserve(name: string): void {
    (this.reserved ??= new Set()).add(name);
  }

  declare(name: string, binding: Binding): void {
    (this.names ??= new Map()).set(name, binding);
  }

  /** Every visible name (for "did you mean" suggestions). */
  visibleNames(): string[] {
    const inner = [...(this.names?.keys() ?? [])];
    return this.parent ? [...inner, ...this.parent.visibleNames()] : inner;
  }
}
