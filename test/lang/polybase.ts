// A model of what Polybase DB 0.6 accepted when a collection was created: the schema text had to pass
// `@polybase/polylang@0.6.0`'s parser, and then the database's own schema validation (which the npm
// package does not contain). The validation rules are ported from the database's: the id field, index paths and
// indexable types, collection decorators and names starting with `$` (fixtures/README.md, `reason: both`).
// It reads the stable AST, the second value the parser returns, exactly as the database did.
import { createRequire } from 'node:module';

type Polylang = typeof import('@polybase/polylang');
// The package is a webpack bundle assigned to `module.exports`, so load it the CommonJS way.
export const polylang = createRequire(import.meta.url)('@polybase/polylang') as Polylang;

export type PolybaseVerdict =
  | { accepted: true }
  | { accepted: false; stage: 'parse' | 'schema'; message: string };

/** The namespace the fixtures are "created" in; collection ids are `fixtures/<Name>`. */
const namespace = 'fixtures';

export async function polybaseVerdict(code: string): Promise<PolybaseVerdict> {
  let stable: unknown;
  try {
    [, stable] = await polylang.parse(code, namespace);
  } catch (error) {
    return { accepted: false, stage: 'parse', message: (error as Error).message };
  }
  for (const collection of stable as StableCollection[]) {
    const message = schemaError(collection);
    if (message !== undefined) return { accepted: false, stage: 'schema', message };
  }
  return { accepted: true };
}

// The parts of the stable AST (what the database stored as `Collection.ast`; src/lang/stable-ast.ts) its validation reads.
interface StableType {
  kind: string;
  value?: string | StableType;
  fields?: { name: string; type: StableType; required: boolean }[];
}
interface StableAttribute {
  kind: string;
  name?: string;
  type?: StableType;
  required?: boolean;
  arguments?: unknown[];
  fields?: { direction: string; fieldPath: string[] }[];
}
interface StableCollection {
  kind: string;
  name: string;
  attributes: StableAttribute[];
}

function schemaError(collection: StableCollection): string | undefined {
  if (collection.name.startsWith('$')) return "collection name cannot start with '$'";
  // The database skipped every other check for a collection named `Collection`.
  if (collection.name === 'Collection') return undefined;

  const properties = collection.attributes.filter((a) => a.kind === 'property');
  const id = properties.find((p) => p.name === 'id');
  if (!id) return "collection must have an 'id' field";
  if (id.type?.kind !== 'primitive' || id.type.value !== 'string') return "collection 'id' field must be a string";
  if (!id.required) return "collection 'id' field cannot be optional";

  const directives = collection.attributes.filter((a) => a.kind === 'directive');
  const unknown = directives.filter((d) => !['public', 'read', 'call'].includes(d.name ?? ''));
  if (unknown.length > 0) return `unknown collection directives ${JSON.stringify(unknown.map((d) => d.name))}`;
  const withArguments = directives.find((d) => (d.arguments ?? []).length > 0);
  if (withArguments) return `collection directive "${withArguments.name}" cannot have arguments`;

  for (const index of collection.attributes.filter((a) => a.kind === 'index')) {
    for (const field of index.fields ?? []) {
      const path = field.fieldPath.join('.');
      const type = resolvePath(properties, field.fieldPath);
      if (!type) return `index field "${path}" not found in schema`;
      if (!indexable(type)) return `cannot index field "${path}" of type ${type.kind}`;
    }
  }
  return undefined;
}

function resolvePath(properties: StableAttribute[], path: string[]): StableType | undefined {
  let fields = properties.map((p) => ({ name: p.name, type: p.type }));
  let type: StableType | undefined;
  for (const segment of path) {
    type = fields.find((f) => f.name === segment)?.type;
    if (!type) return undefined;
    fields = type.kind === 'object' ? (type.fields ?? []) : [];
  }
  return type;
}

function indexable(type: StableType): boolean {
  if (type.kind === 'primitive') return type.value === 'string' || type.value === 'number' || type.value === 'boolean';
  return type.kind === 'publickey' || type.kind === 'foreignrecord';
}
