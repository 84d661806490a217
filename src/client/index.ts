// `vellum/client`: a small fetch-based client of the record service, the runtime under the code that
// `vellum generate client` writes. It runs in Node and in browsers (fetch, no Node modules) and depends only on
// the @noble libraries, for signing. See docs/codegen.md.
export { Client, type ClientOptions, type RequestOptions, type ServiceAnswer, type ServiceRequest, type UntypedSchema } from './client.ts';
export { Collection, RecordHandle, type CollectionSchema, type FunctionArgs, type ListOptions, type Page, type SearchText } from './collection.ts';
export { Query } from './query.ts';
export { type ExpandedEntry, type ExpandPath, type Expansion, type WithExpansion } from './expand.ts';
export {
  SERVICE_ERROR_CODES,
  SERVICE_ERROR_REASONS,
  VellumError,
  type ErrorCode,
  type ErrorReason,
  type ServiceErrorCode,
  type ServiceErrorReason,
} from './errors.ts';
export { ethPersonalSigner, publicKeyHex, randomPrivateKey, signatureHeader, SIGNATURE_HEADER, type Signer, type SignerResponse } from './signer.ts';
export { Subscription, type StreamEvent, type SubscribeOptions } from './stream.ts';
export { AGGREGATE_KINDS, type AggregateField, type AggregateKind, type AggregateSpec, type Aggregates, type NumberField } from './aggregates.ts';
export {
  COMPARISONS,
  WHERE_LIMITS,
  WHERE_OPERATORS,
  type Comparison,
  type ComparisonFor,
  type Direction,
  type ElementOf,
  type FieldCondition,
  type FieldValue,
  type IsOptional,
  type Operand,
  type Operator,
  type OperatorFor,
  type Operators,
  type Sort,
  type SortField,
  type Where,
} from './where.ts';
export {
  argumentsJson,
  base64FromBytes,
  bytesFromBase64,
  type Base64Bytes,
  type BytesInput,
  type F32,
  type F64,
  type I32,
  type I64,
  type HexPublicKey,
  type PublicKeyInput,
  type PublicKeyJwk,
  type RecordReference,
  type ReferenceInput,
  type U32,
  type U64,
} from './wire.ts';
