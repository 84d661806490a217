// The nesting limit of brackets, in a file of its own: the parser and the lexer use it, and the library exports
// it, so the published declarations name it without reaching the lexer's (which import chevrotain's types; the
// package bundles chevrotain and does not depend on it).

/**
 * How deeply brackets (`{ ( [` and `map<`) may nest, in the structure and in function bodies. Every
 * recursive pass (chevrotain, acorn, the checker, the runtime) stays far from stack limits below it.
 */
export const MAX_NESTING_DEPTH = 200;
