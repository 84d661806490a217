// `vellum call`: runs one collection function over a record snapshot and prints the transition as
// JSON, so users can try their functions without a server:
//   vellum call schema.polylang Account.deposit --this '{"id":"a","balance":1}' --args '[5]'
//   vellum call schema.polylang Account.constructor --args '["a"]' --public-key 0x…
// A runtime error is printed as JSON too, with exit code 1; a schema with errors prints its
// diagnostics and exits 1; bad usage exits 2.
import type { Command } from 'commander';
import { checkSchema, didYouMean, hasErrors, renderText } from '../lang/index.ts';
import { CollectionNotFoundError, compileCollection, execute, type WireRecord } from '../runtime/index.ts';
// The bounded reader straight from its module: the service's index.ts would load fastify, pg and the store.
import { FileReadError, MAX_SCHEMA_FILE_BYTES, readBoundedText } from '../files/index.ts';

interface CallFlags {
  this?: string;
  args?: string;
  publicKey?: string;
  gas?: string;
  collectionId?: string;
}

class UsageError extends Error {}

export function registerCall(program: Command): void {
  program
    .command('call')
    .description('run a collection function over a record and print the transition (or the error) as JSON')
    .argument('<schema-file>', 'the schema (.polylang)')
    .argument('<target>', '<Collection>.<function>, e.g. Account.deposit or Account.constructor')
    .option('--this <json>', 'the record the function runs on, as JSON (not for a constructor)')
    .option('--args <json>', 'the arguments as a JSON array; a record argument is {"collectionId","id","data"}', '[]')
    .option('--public-key <key>', "the caller's public key: 0x + 128 hex digits, or a JWK as JSON (default: unsigned)")
    .option('--gas <n>', 'the gas limit (default: 10000000)')
    .option('--collection-id <id>', "the collection's full id, namespace/Name (default: the collection name)")
    .action(function (this: Command, schemaFile: string, target: string, flags: CallFlags) {
      try {
        process.exitCode = run(schemaFile, target, flags);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        console.error(`vellum call: ${error.message}`);
        process.exitCode = 2;
      }
    });
}

function run(schemaFile: string, target: string, flags: CallFlags): number {
  const match = /^([A-Za-z_$][A-Za-z0-9_$]*)\.([A-Za-z_$][A-Za-z0-9_$]*)$/.exec(target);
  if (!match) throw new UsageError(`the target must be <Collection>.<function>, got ${JSON.stringify(target)}`);
  const [, collectionName, functionName] = match as unknown as [string, string, string];
  const isConstructor = functionName === 'constructor';
  const snapshot = flags.this === undefined ? null : (parseJson('--this', flags.this) as WireRecord);
  if (snapshot !== null && (typeof snapshot !== 'object' || Array.isArray(snapshot))) throw new UsageError('--this must be a JSON object');
  const args = parseJson('--args', flags.args ?? '[]');
  if (!Array.isArray(args)) throw new UsageError('--args must be a JSON array');
  const publicKey = flags.publicKey === undefined ? undefined : flags.publicKey.trim().startsWith('{') ? (parseJson('--public-key', flags.publicKey) as object) : flags.publicKey;
  const gas = flags.gas === undefined ? undefined : Number(flags.gas);
  if (gas !== undefined && (!Number.isSafeInteger(gas) || gas < 0 || !/^\d+$/.test(flags.gas!))) {
    throw new UsageError(`--gas must be a non-negative integer, got ${JSON.stringify(flags.gas)}`);
  }

  let text: string;
  try {
    text = readBoundedText(schemaFile, MAX_SCHEMA_FILE_BYTES);
  } catch (error) {
    if (error instanceof FileReadError) throw new UsageError(error.message);
    throw error;
  }
  const checked = checkSchema(text, schemaFile);
  // Warnings are shown but do not stop the call; errors do.
  for (const d of checked.diagnostics) console.error(renderText(d, checked.source));
  if (!checked.program || hasErrors(checked.diagnostics)) {
    console.error(`vellum call: ${schemaFile} has errors; fix them before calling its functions`);
    return 1;
  }
  // The target is checked against the schema before the flags that depend on it.
  const collections = checked.checked!.collectionsByName;
  const declared = collections.get(collectionName);
  if (declared === undefined) {
    const names = [...collections.keys()];
    throw new UsageError(`${schemaFile} declares no collection ${JSON.stringify(collectionName)}${didYouMean(collectionName, names)} (its collections: ${names.join(', ')})`);
  }
  if (!declared.functionsByName.has(functionName)) {
    const names = [...declared.functionsByName.keys()];
    const listed = names.length === 0 ? 'it has no functions' : `its functions: ${names.join(', ')}`;
    throw new UsageError(`collection ${collectionName} has no function ${JSON.stringify(functionName)}${didYouMean(functionName, names)} (${listed})`);
  }
  if (isConstructor && flags.this !== undefined) throw new UsageError('a constructor creates its record: leave out --this');
  if (!isConstructor && flags.this === undefined) throw new UsageError(`--this <json> is required: the record ${target} runs on`);
  let collection;
  try {
    collection = compileCollection(checked, collectionName, { collectionId: flags.collectionId ?? collectionName });
  } catch (error) {
    if (error instanceof CollectionNotFoundError) throw new UsageError(error.message);
    throw error;
  }
  const result = execute(collection, functionName, snapshot, args, { publicKey }, gas === undefined ? undefined : { gas });
  if (result.ok) {
    const { record, deleted, changed, returnValue, gasUsed, logs } = result.transition;
    // `logs` (what the function logged with log(...)) only when there are any, so other output is unchanged.
    console.log(JSON.stringify({ record, deleted, changed, returnValue: returnValue ?? null, gasUsed, ...(logs ? { logs } : {}) }, null, 2));
    return 0;
  }
  console.log(JSON.stringify({ error: result.error, gasUsed: result.gasUsed, ...(result.logs ? { logs: result.logs } : {}) }, null, 2));
  return 1;
}

function parseJson(option: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${option} is not valid JSON: ${(error as Error).message}`);
  }
}
