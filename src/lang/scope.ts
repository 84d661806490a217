// Block scopes of a function body: `let`/`const` are visible from their declaration to the end of
// their block; parameters live in the function's outermost scope (so `let x` beside a parameter
// `x` is a redeclaration, as in JavaScript).

import type { Binding } from './checked.ts';

export class Scope {
  private readonly names = new Map<string, Binding>();

  constructor(readonly parent: Scope | null = null) {}

  lookup(name: string): Binding | undefined {
    return this.names.get(name) ?? this.parent?.lookup(name);
  }

  declaredHere(name: string): boolean {
    return this.names.has(name);
  }

  declare(name: string, binding: Binding): void {
    this.names.set(name, binding);
  }

  /** Every visible name (for "did you mean" suggestions). */
  visibleNames(): string[] {
    const inner = [...this.names.keys()];
    return this.parent ? [...inner, ...this.parent.visibleNames()] : inner;
  }
}
