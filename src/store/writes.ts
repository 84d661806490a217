// What a commit asks of the record store: the writes, the versions and stamps they expect, and the signature
// they claim. Types only; validation.ts checks them and commit-plan.ts turns them into a transaction.

import type { JsonObject } from './index-entries.ts';

export type Write =
  | { readonly kind: 'put'; readonly collectionId: string; readonly record: JsonObject }
  | { readonly kind: 'delete'; readonly collectionId: string; readonly id: string };

/** The commit goes ahead only if the record is still at `version` (null: the record must not exist). */
export interface Expectation {
  readonly collectionId: string;
  readonly id: string;
  readonly version: number | null;
}

/** Marks a request signature as used until `expiresAt` (ms since the epoch). */
export interface SignatureClaim {
  readonly signature: string;
  readonly expiresAt: number;
  /** Defaults to Date.now(). */
  readonly now?: number;
}

/** The commit goes ahead only if the collection's change stamp (its last change's timestamp, 0 for none) is `stamp`. */
export interface StampExpectation {
  readonly collectionId: string;
  readonly stamp: number;
}

export interface CommitRequest {
  readonly writes?: readonly Write[];
  readonly expect?: readonly Expectation[];
  readonly expectStamps?: readonly StampExpectation[];
  readonly claimSignature?: SignatureClaim;
}

/** A commit's request, checked (validation.ts). */
export interface CheckedCommit {
  readonly writes: readonly Write[];
  readonly expectations: readonly Expectation[];
  readonly stampExpectations: readonly StampExpectation[];
  readonly claim: SignatureClaim | undefined;
  /** Each put's record as JSON (checkWrites; undefined for a delete). */
  readonly texts: readonly (string | undefined)[];
}
