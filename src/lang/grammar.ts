// The grammar of the schema structure: collections, decorators, fields, types, indexes and
// function headers. A function body is a single token here (balanced braces); body.ts parses its
// text once the structure is complete. The rules build the AST as they go (chevrotain's embedded
// actions, with the node builders in build-ast.ts): no concrete syntax tree is built and walked. A correct structure
// is parsed by the hand-written structure-fast.ts, which follows these rules; this grammar is the reference, and
// parses (and reports) whatever that one gives up on.
//
// While chevrotain records the grammar (in `performSelfAnalysis`), CONSUME and SUBRULE return
// placeholders; everything that reports a problem or changes a node therefore runs only when
// `building` (chevrotain's RECORDING_PHASE flag is off): what chevrotain's ACTION does, without a
// closure, and a context for it, on every call of a rule. Error recovery is off: the first syntax
// error ends the parse, and parse.ts then drops whatever the actions built.
//
// The parser is a module singleton, made on first use: building a chevrotain parser runs its grammar
// analysis, which is far more expensive than parsing a schema, and a program that imports the library
// without parsing should not pay for it.

import { EMPTY_ALT, EmbeddedActionsParser, tokenMatcher, type IOrAlt, type IParserErrorMessageProvider, type IRecognitionException, type IToken, type TokenType } from 'chevrotain';
import type { Collection, CollectionItem, FieldDeclaration, FunctionDeclaration, Identifier as IdentifierNode, IndexField, Parameter, Program, TypeNode } from './ast.ts';
import {
  arrayTypeOf,
  attachDecorators,
  bracketedIndexField,
  BuildContext,
  collectionOf,
  decoratorOf,
  fieldOf,
  finishProgram,
  functionOf,
  identifier,
  indexOf,
  searchOf,
  mapTypeOf,
  namedType,
  objectTypeOf,
  parameterOf,
  plainIndexField,
  rootFunction,
  tokenEnd,
  type BuildOptions,
  type ParsedDecorator,
} from './build-ast.ts';
import {
  allTokens,
  AtIndex,
  AtSearch,
  CollectionKeyword,
  Colon,
  ContractKeyword,
  Comma,
  Decorator,
  Dot,
  FunctionBody,
  FunctionKeyword,
  Greater,
  Identifier,
  KeyLiteral,
  LCurly,
  Less,
  LParen,
  LSquare,
  MapKeyword,
  Question,
  RCurly,
  RParen,
  RSquare,
  Semicolon,
} from './lexer.ts';

/**
 * What the parser expected when it failed: chevrotain only lets an error message provider return a
 * string, so the provider serialises this and parse.ts reads it back to build a diagnostic.
 */
export interface ExpectedAt {
  /** Index into the lookahead tokens of the token that broke every alternative (0 = the current one). */
  lookahead: number;
  /** Friendly names of the tokens that would have been accepted there. */
  expected: string[];
}

export function friendlyName(type: TokenType): string {
  if (type.name === 'EOF') return 'end of file';
  return type.LABEL ?? type.name;
}

function expectedAfterCommonPrefix(paths: TokenType[][], actual: IToken[]): ExpectedAt {
  // Every path shares a prefix with the actual tokens; the error is where the longest such prefix ends.
  let best = 0;
  for (const path of paths) {
    let matched = 0;
    while (matched < path.length && matched < actual.length && tokenMatcher(actual[matched]!, path[matched]!)) matched++;
    if (matched < path.length) best = Math.max(best, matched);
  }
  const names = new Set<string>();
  for (const path of paths) {
    let fits = true;
    for (let i = 0; i < best && fits; i++) fits = i < path.length && tokenMatcher(actual[i]!, path[i]!);
    const next = path[best];
    if (fits && next !== undefined) names.add(friendlyName(next));
  }
  // `map` and `contract` are identifiers too: "identifier" says it all.
  if (names.has(friendlyName(Identifier))) {
    names.delete(friendlyName(MapKeyword));
    names.delete(friendlyName(ContractKeyword));
  }
  return { lookahead: best, expected: [...names] };
}


const errorMessages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage: ({ expected }) =>
    JSON.stringify({ lookahead: 0, expected: [friendlyName(expected)] } satisfies ExpectedAt),
  buildNotAllInputParsedMessage: () =>
    JSON.stringify({ lookahead: 0, expected: [friendlyName(CollectionKeyword)] } satisfies ExpectedAt),
  buildNoViableAltMessage: ({ expectedPathsPerAlt, actual, ruleName }) =>
    // A root-level function parses only to be reported; suggesting one would mislead.
    ruleName === 'rootItem'
      ? JSON.stringify(
          // `contract` could start a collection (or a root function): what follows it is wrong.
          (actual[0]?.tokenType === ContractKeyword
            ? { lookahead: 1, expected: [friendlyName(Identifier)] }
            : { lookahead: 0, expected: [friendlyName(CollectionKeyword)] }) satisfies ExpectedAt,
        )
      : JSON.stringify(expectedAfterCommonPrefix(expectedPathsPerAlt.flat(), actual)),
  buildEarlyExitMessage: ({ expectedIterationPaths, actual }) =>
    JSON.stringify(expectedAfterCommonPrefix(expectedIterationPaths, actual)),
};

/** What a rule returns while chevrotain records the grammar (the value is never used). */
const RECORDING = undefined as never;

export class SchemaParser extends EmbeddedActionsParser {
  // Alternatives of each OR, created once: building them on every call costs more than the parse
  // (chevrotain's documented "caching arrays of alternatives" optimisation).
  private readonly alternatives: Record<string, IOrAlt<unknown>[]> = {};
  /** The state of the parse under way (set by `parseStructure`; read only when `building`). */
  private context!: BuildContext;

  /** False while chevrotain records the grammar: then nothing may be built or reported. */
  private get building(): boolean {
    return !this.RECORDING_PHASE;
  }

  /** `validate`: run chevrotain's grammar validations (ambiguities, left recursion). They find mistakes in this file,
   *  never in a schema, and cost a noticeable part of `vellum check`'s start: the tests run them
   *  (test/lang/parser.test.ts), the parser made for use skips them. */
  constructor(validate = false) {
    super(allTokens, {
      maxLookahead: 3,
      errorMessageProvider: errorMessages,
      skipValidations: !validate,
    });
    this.performSelfAnalysis();
  }

  /**
   * Parses the structure. Without a syntax error, `finish` parses the function bodies and gives the
   * program; the problems the builders found are in `context.diagnostics` either way.
   */
  parseStructure(tokens: IToken[], options: BuildOptions): StructureResult {
    const context = new BuildContext(options);
    this.context = context;
    this.input = tokens;
    try {
      const collections = this.program();
      const [error] = this.errors;
      return {
        error,
        context,
        // A method, not an arrow property: tsx (esbuild's keepNames) would name an arrow on every call.
        finish() {
          return finishProgram(collections, context);
        },
      };
    } finally {
      this.input = [];
    }
  }

  // program := rootItem*
  private program = this.RULE('program', (): Collection[] => {
    const collections: Collection[] = [];
    this.MANY(() => {
      const collection = this.SUBRULE(this.rootItem);
      if (this.building && collection) collections.push(collection);
    });
    return collections;
  });

  // A root-level function parses (Polylang accepted it syntactically) so that it can be reported
  // with a precise message instead of a syntax error; only that message is kept.
  private rootItem = this.RULE('rootItem', (): Collection | undefined => {
    const decorators: ParsedDecorator[] = [];
    this.MANY(() => {
      const decorator = this.SUBRULE(this.decorator);
      decorators.push(decorator);
    });
    const mark = this.building ? this.context.mark() : undefined;
    const item = this.OR(
      (this.alternatives.rootItem ??= [
        { ALT: () => this.SUBRULE(this.collection) },
        { ALT: () => this.SUBRULE(this.functionDeclaration) },
      ]),
    ) as Collection | FunctionDeclaration;
    if (!this.building) return undefined;
    if (item.kind === 'collection') {
      attachDecorators(item, decorators);
      return item;
    }
    this.context.rollBack(mark!);
    rootFunction(item.name, this.context);
    return undefined;
  });

  // collection := (`collection` | `contract`) Name `{` item* `}`   (`contract`: Polylang after 0.6)
  private collection = this.RULE('collection', (): Collection => {
    const keyword = this.OR(
      (this.alternatives.collectionKeyword ??= [
        { ALT: () => this.CONSUME(CollectionKeyword) },
        { ALT: () => this.CONSUME(ContractKeyword) },
      ]),
    ) as IToken;
    const name = this.CONSUME(Identifier);
    this.CONSUME(LCurly);
    const items: CollectionItem[] = [];
    this.MANY(() => {
      const item = this.SUBRULE(this.item);
      items.push(item);
    });
    const close = this.CONSUME(RCurly);
    return collectionOf(keyword, name, items, close);
  });

  // Items keep their source order.
  private item = this.RULE('item', (): CollectionItem => {
    return this.OR(
      (this.alternatives.item ??= [
        { ALT: () => this.SUBRULE(this.index) },
        { ALT: () => this.SUBRULE(this.search) },
        {
          ALT: () => {
            const decorators: ParsedDecorator[] = [];
            this.MANY(() => {
              const decorator = this.SUBRULE(this.decorator);
              decorators.push(decorator);
            });
            const member = this.OR2(
              (this.alternatives.member ??= [
                { ALT: () => this.SUBRULE(this.field) },
                { ALT: () => this.SUBRULE(this.functionDeclaration) },
              ]),
            ) as FieldDeclaration | FunctionDeclaration;
            if (this.building) attachDecorators(member, decorators);
            return member;
          },
        },
      ]),
    ) as CollectionItem;
  });

  // decorator := @name [ `(` ((identifier | keyLiteral) [`,`])* `)` ]   (commas: Vellum; key literals: later Polylang)
  private decorator = this.RULE('decorator', (): ParsedDecorator => {
    const name = this.CONSUME(Decorator);
    let args: IdentifierNode[] | null = null;
    const keys: IToken[] = [];
    let close: IToken | undefined;
    this.OPTION(() => {
      this.CONSUME(LParen);
      const identifiers: IdentifierNode[] = (args = []);
      this.MANY(() => {
        // The cached alternatives must not capture this call's locals: they return the token.
        const argument = this.OR(
          (this.alternatives.decoratorArgument ??= [
            { ALT: () => this.CONSUME(Identifier) },
            { ALT: () => this.CONSUME(KeyLiteral) },
          ]),
        ) as IToken;
        if (this.building) {
          if (argument.tokenType === KeyLiteral) keys.push(argument);
          else identifiers.push(identifier(argument));
        }
        this.OPTION2(() => this.CONSUME(Comma));
      });
      close = this.CONSUME(RParen);
    });
    return this.building ? decoratorOf(name, args, close, this.context, keys) : RECORDING;
  });

  // field := name [`?`] `:` type `;`
  private field = this.RULE('field', (): FieldDeclaration => {
    const name = this.CONSUME(Identifier);
    const question = this.OPTION(() => this.CONSUME(Question));
    this.CONSUME(Colon);
    const type = this.SUBRULE(this.type);
    const semicolon = this.CONSUME(Semicolon);
    return fieldOf(name, question, type, tokenEnd(semicolon));
  });

  // index := `@index` `(` [entry (`,` entry)* [`,`]] `)` `;`
  private index = this.RULE('index', () => {
    const at = this.CONSUME(AtIndex);
    this.CONSUME(LParen);
    const fields: IndexField[] = [];
    this.OPTION(() => {
      fields.push(this.SUBRULE(this.indexEntry));
      this.MANY(() => {
        this.CONSUME(Comma);
        fields.push(this.SUBRULE2(this.indexEntry));
      });
      this.OPTION2(() => this.CONSUME2(Comma));
    });
    this.CONSUME(RParen);
    const semicolon = this.CONSUME(Semicolon);
    return indexOf(at, fields, semicolon);
  });

  // search := `@search` `(` [name (`,` name)* [`,`]] `)` `;`   (Vellum's: the fields full-text search covers)
  private search = this.RULE('search', () => {
    const at = this.CONSUME(AtSearch);
    this.CONSUME(LParen);
    const fields: IdentifierNode[] = [];
    this.OPTION(() => {
      fields.push(identifier(this.CONSUME(Identifier)));
      this.MANY(() => {
        this.CONSUME(Comma);
        fields.push(identifier(this.CONSUME2(Identifier)));
      });
      this.OPTION2(() => this.CONSUME2(Comma));
    });
    this.CONSUME(RParen);
    const semicolon = this.CONSUME(Semicolon);
    return searchOf(at, fields, semicolon);
  });

  // entry := path | `[` path `,` direction `]`   (build-ast.ts checks the direction)
  private indexEntry = this.RULE('indexEntry', (): IndexField => {
    return this.OR(
      (this.alternatives.indexEntry ??= [
        {
          ALT: () => {
            const path = this.SUBRULE(this.fieldPath);
            return this.building ? plainIndexField(path) : RECORDING;
          },
        },
        {
          ALT: () => {
            const open = this.CONSUME(LSquare);
            const path = this.SUBRULE2(this.fieldPath);
            this.CONSUME(Comma);
            const direction = this.CONSUME(Identifier);
            const close = this.CONSUME(RSquare);
            return this.building ? bracketedIndexField(open, path, direction, close, this.context) : RECORDING;
          },
        },
      ]),
    ) as IndexField;
  });

  private fieldPath = this.RULE('fieldPath', (): IdentifierNode[] => {
    const path = [identifier(this.CONSUME(Identifier))];
    this.MANY(() => {
      this.CONSUME(Dot);
      path.push(identifier(this.CONSUME2(Identifier)));
    });
    return path;
  });

  // function := [`function`] name `(` parameters `)` [`:` type] body
  private functionDeclaration = this.RULE('functionDeclaration', (): FunctionDeclaration => {
    const keyword = this.OPTION(() => this.CONSUME(FunctionKeyword));
    const name = this.CONSUME(Identifier);
    this.CONSUME(LParen);
    const parameters: Parameter[] = [];
    this.OPTION2(() => {
      parameters.push(this.SUBRULE(this.parameter));
      this.MANY(() => {
        this.CONSUME(Comma);
        parameters.push(this.SUBRULE2(this.parameter));
      });
      this.OPTION3(() => this.CONSUME2(Comma));
    });
    this.CONSUME(RParen);
    const returnType =
      this.OPTION4(() => {
        this.CONSUME(Colon);
        return this.SUBRULE(this.type);
      }) ?? null;
    const body = this.SUBRULE(this.body);
    return this.building ? functionOf(keyword, name, parameters, returnType, body, this.context) : RECORDING;
  });

  // body := FunctionBody: one token, from `{` to the matching `}` (see lexer.ts); body.ts parses its
  // text. A rule of its own so that the diagrams show where bodies are.
  private body = this.RULE('body', (): IToken => this.CONSUME(FunctionBody));

  private parameter = this.RULE('parameter', (): Parameter => {
    const name = this.CONSUME(Identifier);
    const question = this.OPTION(() => this.CONSUME(Question));
    this.CONSUME(Colon);
    const type = this.SUBRULE(this.type);
    return this.building ? parameterOf(name, question, type) : RECORDING;
  });

  // type := (`map` `<` type `,` type `>` | objectType | name) (`[` `]`)*
  // Array element restrictions (no nested arrays, no arrays of maps or objects) are reported by
  // build-ast.ts with a clearer message than a syntax error would give.
  private type = this.RULE('type', (): TypeNode => {
    let type = this.OR(
      (this.alternatives.type ??= [
        { ALT: () => this.SUBRULE(this.mapType) },
        { ALT: () => this.SUBRULE(this.objectType) },
        { ALT: () => namedType(this.CONSUME(Identifier)) },
      ]),
    ) as TypeNode;
    this.MANY(() => {
      const open = this.CONSUME(LSquare);
      const close = this.CONSUME(RSquare);
      const element = type;
      type = this.building ? arrayTypeOf(element, open, close, this.context) : RECORDING;
    });
    return type;
  });

  private mapType = this.RULE('mapType', (): TypeNode => {
    const keyword = this.CONSUME(MapKeyword);
    this.CONSUME(Less);
    const key = this.SUBRULE(this.type);
    this.CONSUME(Comma);
    const value = this.SUBRULE2(this.type);
    const close = this.CONSUME(Greater);
    return mapTypeOf(keyword, key, value, close);
  });

  // objectType := `{` (objectField (`;` | before `}`))* `}`: the last `;` is optional (extension).
  private objectType = this.RULE('objectType', (): TypeNode => {
    const open = this.CONSUME(LCurly);
    const fields: FieldDeclaration[] = [];
    this.MANY(() => {
      const field = this.SUBRULE(this.objectField);
      const semicolon = this.OR(
        (this.alternatives.objectFieldEnd ??= [
          { ALT: () => this.CONSUME(Semicolon) },
          { GATE: () => this.LA(1).tokenType === RCurly, ALT: EMPTY_ALT() },
        ]),
      ) as IToken | undefined;
      if (this.building) {
        if (semicolon) field.span.end = tokenEnd(semicolon);
        fields.push(field);
      }
    });
    const close = this.CONSUME(RCurly);
    return objectTypeOf(open, fields, close);
  });

  // Inner fields may carry decorators (Polylang accepted them); they are kept in the AST. The field
  // ends at its type here, at its `;` once objectType has seen one.
  private objectField = this.RULE('objectField', (): FieldDeclaration => {
    const decorators: ParsedDecorator[] = [];
    this.MANY(() => {
      const decorator = this.SUBRULE(this.decorator);
      decorators.push(decorator);
    });
    const name = this.CONSUME(Identifier);
    const question = this.OPTION(() => this.CONSUME(Question));
    this.CONSUME(Colon);
    const type = this.SUBRULE(this.type);
    if (!this.building) return RECORDING;
    const field = fieldOf(name, question, type, type.span.end);
    attachDecorators(field, decorators);
    return field;
  });
}

export interface StructureResult {
  /** The first syntax error, if any: then nothing the actions built is meaningful. */
  error: IRecognitionException | undefined;
  /** What the node builders reported (unknown decorators, index directions, ...). */
  context: BuildContext;
  /** The program with its function bodies parsed (only when there is no error). */
  finish(): Program;
}

let parser: SchemaParser | undefined;

/** The schema parser, made on first use. */
export function schemaParser(): SchemaParser {
  return (parser ??= new SchemaParser());
}
