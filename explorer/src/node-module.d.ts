// The explorer imports only types from src/lang, but the type check reads the modules behind them, and
// src/lang/body.ts loads acorn on first use through node:module. The explorer has no Node types (it runs in
// a browser), so the one function that file uses is declared here; nothing of it reaches the bundle.
declare module 'node:module' {
  export function createRequire(path: string | URL): (id: string) => unknown;
}
