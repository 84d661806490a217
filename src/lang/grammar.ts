// The grammar of the schema structure: collections, decorators, fields, types, indexes and
// function headers. A function body is a single token here (balanced braces); acorn parses its
// text later (body.ts). This file holds rules only; build-ast.ts turns the concrete syntax tree into
// the AST.
//
// The parser is a module singleton: building a chevrotain parser runs its grammar analysis, which is
// far more expensive than parsing a schema.

import { CstParser, EMPTY_ALT, tokenMatcher, type CstNode, type IOrAlt, type IParserErrorMessageProvider, type IToken, type TokenType } from 'chevrotain';
import {
  allTokens,
  AtIndex,
  CollectionKeyword,
  Colon,
  Comma,
  Decorator,
  Dot,
  FunctionBody,
  FunctionKeyword,
  Greater,
  Identifier,
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
  // `map` is an identifier too: "identifier" says it all.
  if (names.has(friendlyName(Identifier))) names.delete(friendlyName(MapKeyword));
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
      ? JSON.stringify({ lookahead: 0, expected: [friendlyName(CollectionKeyword)] } satisfies ExpectedAt)
      : JSON.stringify(expectedAfterCommonPrefix(expectedPathsPerAlt.flat(), actual)),
  buildEarlyExitMessage: ({ expectedIterationPaths, actual }) =>
    JSON.stringify(expectedAfterCommonPrefix(expectedIterationPaths, actual)),
};

export class SchemaParser extends CstParser {
  // Alternatives of each OR, created once: building them on every call costs more than the parse
  // (chevrotain's documented "caching arrays of alternatives" optimisation).
  private readonly alternatives: Record<string, IOrAlt<unknown>[]> = {};

  constructor() {
    super(allTokens, {
      maxLookahead: 3,
      nodeLocationTracking: 'none',
      errorMessageProvider: errorMessages,
    });
    this.performSelfAnalysis();
  }

  // program := rootItem*
  program = this.RULE('program', () => {
    this.MANY(() => this.SUBRULE(this.rootItem));
  });

  // A root-level function parses (Polylang accepted it syntactically) so that it can be reported
  // with a precise message instead of a syntax error.
  rootItem = this.RULE('rootItem', () => {
    this.MANY(() => this.SUBRULE(this.decorator));
    this.OR(
      (this.alternatives.rootItem ??= [
        { ALT: () => this.SUBRULE(this.collection) },
        { ALT: () => this.SUBRULE(this.functionDeclaration) },
      ]),
    );
  });

  // collection := `collection` Name `{` item* `}`
  collection = this.RULE('collection', () => {
    this.CONSUME(CollectionKeyword);
    this.CONSUME(Identifier);
    this.CONSUME(LCurly);
    this.MANY(() => this.SUBRULE(this.item));
    this.CONSUME(RCurly);
  });

  // Items keep their source order because they are all children named `item` of the collection.
  item = this.RULE('item', () => {
    this.OR(
      (this.alternatives.item ??= [
        { ALT: () => this.SUBRULE(this.index) },
        {
          ALT: () => {
            this.MANY(() => this.SUBRULE(this.decorator));
            this.OR2(
              (this.alternatives.member ??= [
                { ALT: () => this.SUBRULE(this.field) },
                { ALT: () => this.SUBRULE(this.functionDeclaration) },
              ]),
            );
          },
        },
      ]),
    );
  });

  // decorator := @name [ `(` (identifier [`,`])* `)` ]   (commas are a Vellum extension)
  decorator = this.RULE('decorator', () => {
    this.CONSUME(Decorator);
    this.OPTION(() => {
      this.CONSUME(LParen);
      this.MANY(() => {
        this.CONSUME(Identifier);
        this.OPTION2(() => this.CONSUME(Comma));
      });
      this.CONSUME(RParen);
    });
  });

  // field := name [`?`] `:` type `;`
  field = this.RULE('field', () => {
    this.CONSUME(Identifier);
    this.OPTION(() => this.CONSUME(Question));
    this.CONSUME(Colon);
    this.SUBRULE(this.type);
    this.CONSUME(Semicolon);
  });

  // index := `@index` `(` [entry (`,` entry)* [`,`]] `)` `;`
  index = this.RULE('index', () => {
    this.CONSUME(AtIndex);
    this.CONSUME(LParen);
    this.OPTION(() => {
      this.SUBRULE(this.indexEntry);
      this.MANY(() => {
        this.CONSUME(Comma);
        this.SUBRULE2(this.indexEntry);
      });
      this.OPTION2(() => this.CONSUME2(Comma));
    });
    this.CONSUME(RParen);
    this.CONSUME(Semicolon);
  });

  // entry := path | `[` path `,` direction `]`   (direction is checked by build-ast.ts)
  indexEntry = this.RULE('indexEntry', () => {
    this.OR(
      (this.alternatives.indexEntry ??= [
        { ALT: () => this.SUBRULE(this.fieldPath) },
        {
          ALT: () => {
            this.CONSUME(LSquare);
            this.SUBRULE2(this.fieldPath);
            this.CONSUME(Comma);
            this.CONSUME(Identifier);
            this.CONSUME(RSquare);
          },
        },
      ]),
    );
  });

  fieldPath = this.RULE('fieldPath', () => {
    this.CONSUME(Identifier);
    this.MANY(() => {
      this.CONSUME(Dot);
      this.CONSUME2(Identifier);
    });
  });

  // function := [`function`] name `(` parameters `)` [`:` type] body
  functionDeclaration = this.RULE('functionDeclaration', () => {
    this.OPTION(() => this.CONSUME(FunctionKeyword));
    this.CONSUME(Identifier);
    this.CONSUME(LParen);
    this.OPTION2(() => {
      this.SUBRULE(this.parameter);
      this.MANY(() => {
        this.CONSUME(Comma);
        this.SUBRULE2(this.parameter);
      });
      this.OPTION3(() => this.CONSUME2(Comma));
    });
    this.CONSUME(RParen);
    this.OPTION4(() => {
      this.CONSUME(Colon);
      this.SUBRULE(this.type);
    });
    this.SUBRULE(this.body);
  });

  // body := FunctionBody: one token, from `{` to the matching `}` (see lexer.ts); acorn parses its
  // text. A rule of its own so that the diagrams show where bodies are.
  body = this.RULE('body', () => {
    this.CONSUME(FunctionBody);
  });

  parameter = this.RULE('parameter', () => {
    this.CONSUME(Identifier);
    this.OPTION(() => this.CONSUME(Question));
    this.CONSUME(Colon);
    this.SUBRULE(this.type);
  });

  // type := (`map` `<` type `,` type `>` | objectType | name) (`[` `]`)*
  // Array element restrictions (no nested arrays, no arrays of maps or objects) are reported by
  // build-ast.ts with a clearer message than a syntax error would give.
  type = this.RULE('type', () => {
    this.OR(
      (this.alternatives.type ??= [
        { ALT: () => this.SUBRULE(this.mapType) },
        { ALT: () => this.SUBRULE(this.objectType) },
        { ALT: () => this.CONSUME(Identifier) },
      ]),
    );
    this.MANY(() => {
      this.CONSUME(LSquare);
      this.CONSUME(RSquare);
    });
  });

  mapType = this.RULE('mapType', () => {
    this.CONSUME(MapKeyword);
    this.CONSUME(Less);
    this.SUBRULE(this.type);
    this.CONSUME(Comma);
    this.SUBRULE2(this.type);
    this.CONSUME(Greater);
  });

  // objectType := `{` (objectField (`;` | before `}`))* `}`: the last `;` is optional (extension).
  objectType = this.RULE('objectType', () => {
    this.CONSUME(LCurly);
    this.MANY(() => {
      this.SUBRULE(this.objectField);
      this.OR(
        (this.alternatives.objectFieldEnd ??= [
          { ALT: () => this.CONSUME(Semicolon) },
          { GATE: () => this.LA(1).tokenType === RCurly, ALT: EMPTY_ALT() },
        ]),
      );
    });
    this.CONSUME(RCurly);
  });

  // Inner fields may carry decorators (Polylang accepted them); they are kept in the AST.
  objectField = this.RULE('objectField', () => {
    this.MANY(() => this.SUBRULE(this.decorator));
    this.CONSUME(Identifier);
    this.OPTION(() => this.CONSUME(Question));
    this.CONSUME(Colon);
    this.SUBRULE(this.type);
  });
}

export const schemaParser = new SchemaParser();

export type { CstNode };
