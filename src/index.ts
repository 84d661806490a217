// Vellum's library API: everything a server author embeds. Each folder's index.ts is its public face;
// this file gathers them.
//
//   lang     parse, check, print and describe schemas (diagnostics with stable codes and spans)
//   runtime  compile a collection and execute its functions over record snapshots; permissions
//   auth     verify signature headers, sign requests, public key forms
//   store    records, indexes, queries, cursors and the change feed on SQLite or PostgreSQL
//   service  the HTTP record service under /v0
//   codegen  typed TypeScript clients generated from schemas (their runtime is `vellum/client`, src/client)

export * from './lang/index.ts';
export * from './auth/index.ts';
export * from './runtime/index.ts';
export * from './store/index.ts';
export * from './service/index.ts';
export * from './codegen/index.ts';

// Names two folders both export; the explicit exports below settle which one the top level means.
export type { IndexField } from './lang/index.ts';
export type { IndexField as LayoutIndexField, ErrorCode as StoreErrorCode, ErrorReason as StoreErrorReason } from './store/index.ts';
export type { ErrorCode, ErrorReason } from './service/index.ts';
export { MAX_WAIT_MS } from './service/index.ts';
