// The history of each collection's schema: every schema applied (created or updated) is kept as a record of the
// store collection `Collection/$history` (a name no user collection can have: names may not start with `$`),
// written in the same commit as the schema record itself, with its version number, the time, the signer and the
// plan it was applied with. Going back to an earlier version is an ordinary planned change to that version's code
// (`vellum migrate revert`), recorded as a new version. Not served over HTTP: plans count stored records of
// collections that may be private.

import type { PublicKey } from '../auth/index.ts';
import { parse } from '../lang/index.ts';
import { layoutOf, type Expectation, type JsonObject, type Layout, type RecordStore, type Write } from '../store/index.ts';
import type { SchemaPlan } from './schema-plan.ts';

export const HISTORY_COLLECTION_ID = 'Collection/$history';

const HISTORY_CODE = `collection SchemaHistory {
  id: string;
  collectionId: string;
  version: number;
  code: string;
  appliedAt: number;
  signer?: string;
  plan: string;
  @index(collectionId, version);
}`;

let historyLayout: Layout | undefined;
/** The history collection's layout, made on first use: importing the library should not parse. */
const HISTORY_LAYOUT = (): Layout => (historyLayout ??= layoutOf(parse(HISTORY_CODE, 'SchemaHistory').program!.collections[0]!));

/** One applied schema. */
export interface SchemaVersion {
  readonly collectionId: string;
  /** 1 for the schema the collection was created with, then one more for each change. */
  readonly version: number;
  readonly code: string;
  /** When it was applied (ms since the epoch, the applying server's clock). */
  readonly appliedAt: number;
  /** The signer's public key (hex), absent for an unsigned request or the operator (`vellum serve --schema`, `vellum migrate`). */
  readonly signer?: string;
  /** The plan it was applied with (without example values: see schema-plan.ts), and the fields whose loss was accepted. */
  readonly plan: SchemaPlan & { readonly acceptedDataLoss: readonly string[] };
}

/** Defines the history's layout in the store (idempotent). */
export async function defineHistory(store: RecordStore): Promise<void> {
  await store.defineCollection(HISTORY_COLLECTION_ID, HISTORY_LAYOUT());
}

/** Every version of the collection's schema, oldest first. */
export async function schemaHistory(store: RecordStore, collectionId: string): Promise<SchemaVersion[]> {
  const versions: SchemaVersion[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store.list(HISTORY_COLLECTION_ID, { where: { collectionId }, sort: [['version', 'asc']], limit: 1000, after });
    for (const record of page.records) versions.push(fromRecord(record));
    if (page.records.length < 1000 || page.cursor.after === null) return versions;
    after = page.cursor.after;
  }
}

/** The collection's latest version, or null when it has no history (created before the history was kept). */
export async function latestVersion(store: RecordStore, collectionId: string): Promise<SchemaVersion | null> {
  const { records } = await store.list(HISTORY_COLLECTION_ID, { where: { collectionId }, sort: [['version', 'desc']], limit: 1 });
  return records.length === 0 ? null : fromRecord(records[0]!);
}

/**
 * The write that records `code` as the collection's next version, and the expectation that makes its commit fail
 * (and run again) if another change took that version number meanwhile.
 */
export async function nextVersionWrite(
  store: RecordStore,
  entry: { collectionId: string; code: string; signer: PublicKey | undefined; plan: SchemaPlan; acceptedDataLoss: readonly string[] },
): Promise<{ write: Write; expect: Expectation }> {
  const { records } = await store.list(HISTORY_COLLECTION_ID, { where: { collectionId: entry.collectionId }, sort: [['version', 'desc']], limit: 1 });
  const version = records.length === 0 ? 1 : Number(records[0]!.version) + 1;
  const id = `${entry.collectionId}@${version}`;
  const plan = { ...entry.plan, fields: entry.plan.fields.map(({ example: _example, ...field }) => field), acceptedDataLoss: entry.acceptedDataLoss };
  const record: JsonObject = { id, collectionId: entry.collectionId, version, code: entry.code, appliedAt: Date.now(), plan: JSON.stringify(plan) };
  if (entry.signer) record.signer = entry.signer.toHex();
  return { write: { kind: 'put', collectionId: HISTORY_COLLECTION_ID, record }, expect: { collectionId: HISTORY_COLLECTION_ID, id, version: null } };
}

function fromRecord(record: JsonObject): SchemaVersion {
  const version: SchemaVersion = {
    collectionId: String(record.collectionId),
    version: Number(record.version),
    code: String(record.code),
    appliedAt: Number(record.appliedAt),
    plan: JSON.parse(String(record.plan)) as SchemaVersion['plan'],
  };
  return typeof record.signer === 'string' ? { ...version, signer: record.signer } : version;
}
