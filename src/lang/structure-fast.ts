// A fast path for the structure grammar (grammar.ts): a hand-written recursive-descent parser over the same tokens,
// for what a correct schema's structure holds (collections, decorators, fields, types, indexes, search and function
// headers). It follows the grammar's rules one for one and builds every node with the same builders (build-ast.ts),
// in the same order, into a BuildContext of its own as the grammar does, so the program, its spans and the builders'
// diagnostics are the grammar's.
//
// It gives up (returns undefined) at anything the grammar would reject and at the corners where the grammar's choice
// rests on chevrotain's lookahead rather than one token (a root-level function, `map` as a type name, `contract` not
// followed by a name at the root): chevrotain's parser then parses the tokens from the start and reports every
// problem. test/lang/structure-fast.test.ts compares the two on every fixture, on cuts and on generated structures.

import type { IToken, TokenType } from 'chevrotain';
import type { Collection, CollectionItem, FieldDeclaration, FunctionDeclaration, Identifier as IdentifierNode, IndexField, Parameter, TypeNode } from './ast.ts';
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
  mapTypeOf,
  namedType,
  objectTypeOf,
  parameterOf,
  plainIndexField,
  searchOf,
  tokenEnd,
  type BuildOptions,
  type ParsedDecorator,
} from './build-ast.ts';
import type { StructureResult } from './grammar.ts';
import {
  allTokens,
  AtIndex,
  AtSearch,
  CollectionKeyword,
  Colon,
  Comma,
  ContractKeyword,
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

/** By token type index: whether the grammar's `CONSUME(Identifier)` takes the token (Identifier and the keywords
 *  lexer.ts puts in its category, `map` and `contract`). */
const IS_NAME: boolean[] = [];
for (const type of allTokens) IS_NAME[type.tokenTypeIdx!] = type === Identifier || (type.CATEGORIES ?? []).includes(Identifier);

/** Thrown to give up; caught in `parseStructureFast`. */
const GIVE_UP = new Error('the fast structure parser gives up');

/** The structure parsed as the grammar parses it, or undefined when chevrotain's parser must parse it. */
export function parseStructureFast(tokens: IToken[], options: BuildOptions): StructureResult | undefined {
  const context = new BuildContext(options);
  let collections: Collection[];
  try {
    collections = new StructureParser(tokens, context).program();
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  }
  return {
    error: undefined,
    context,
    finish() {
      return finishProgram(collections, context);
    },
  };
}

class StructureParser {
  private position = 0;

  constructor(
    private readonly tokens: IToken[],
    private readonly context: BuildContext,
  ) {}

  /** The type of the token `ahead` places after the current one (undefined past the end). */
  private typeAt(ahead: number): TokenType | undefined {
    return this.tokens[this.position + ahead]?.tokenType;
  }

  private nameAt(ahead: number): boolean {
    const token = this.tokens[this.position + ahead];
    return token !== undefined && IS_NAME[token.tokenTypeIdx] === true;
  }

  private consume(type: TokenType): IToken {
    const token = this.tokens[this.position];
    if (token === undefined || token.tokenType !== type) throw GIVE_UP;
    this.position++;
    return token;
  }

  private consumeName(): IToken {
    const token = this.tokens[this.position];
    if (token === undefined || IS_NAME[token.tokenTypeIdx] !== true) throw GIVE_UP;
    this.position++;
    return token;
  }

  /** The token if it is of `type` (consumed), else undefined. */
  private optional(type: TokenType): IToken | undefined {
    const token = this.tokens[this.position];
    if (token === undefined || token.tokenType !== type) return undefined;
    this.position++;
    return token;
  }

  // program := rootItem*, where only a collection is taken (a root-level function is reported by the grammar).
  program(): Collection[] {
    const collections: Collection[] = [];
    while (this.position < this.tokens.length) {
      const decorators = this.decorators();
      const keyword = this.typeAt(0);
      if (!(keyword === CollectionKeyword || (keyword === ContractKeyword && this.nameAt(1)))) throw GIVE_UP;
      const collection = this.collection();
      attachDecorators(collection, decorators);
      collections.push(collection);
    }
    return collections;
  }

  private decorators(): ParsedDecorator[] {
    const decorators: ParsedDecorator[] = [];
    while (this.typeAt(0) === Decorator) decorators.push(this.decorator());
    return decorators;
  }

  // collection := (`collection` | `contract`) Name `{` item* `}`
  private collection(): Collection {
    // program() has checked the keyword.
    const keyword = this.tokens[this.position++]!;
    const name = this.consumeName();
    this.consume(LCurly);
    const items: CollectionItem[] = [];
    while (this.typeAt(0) !== RCurly) items.push(this.item());
    const close = this.consume(RCurly);
    return collectionOf(keyword, name, items, close);
  }

  // item := index | search | decorator* (field | function)
  private item(): CollectionItem {
    const first = this.typeAt(0);
    if (first === AtIndex) return this.index();
    if (first === AtSearch) return this.search();
    const decorators = this.decorators();
    let member: FieldDeclaration | FunctionDeclaration;
    if (this.typeAt(0) === FunctionKeyword) member = this.functionDeclaration();
    else if (!this.nameAt(0)) throw GIVE_UP;
    else {
      const next = this.typeAt(1);
      if (next === Colon || next === Question) member = this.field();
      else if (next === LParen) member = this.functionDeclaration();
      else throw GIVE_UP;
    }
    attachDecorators(member, decorators);
    return member;
  }

  // decorator := @name [ `(` ((identifier | keyLiteral) [`,`])* `)` ]
  private decorator(): ParsedDecorator {
    const name = this.consume(Decorator);
    let args: IdentifierNode[] | null = null;
    const keys: IToken[] = [];
    let close: IToken | undefined;
    if (this.optional(LParen)) {
      args = [];
      for (;;) {
        const token = this.tokens[this.position];
        if (token === undefined) throw GIVE_UP;
        if (token.tokenType === KeyLiteral) keys.push(token);
        else if (IS_NAME[token.tokenTypeIdx] === true) args.push(identifier(token));
        else break;
        this.position++;
        this.optional(Comma);
      }
      close = this.consume(RParen);
    }
    return decoratorOf(name, args, close, this.context, keys);
  }

  // field := name [`?`] `:` type `;`
  private field(): FieldDeclaration {
    const name = this.consumeName();
    const question = this.optional(Question);
    this.consume(Colon);
    const type = this.type();
    const semicolon = this.consume(Semicolon);
    return fieldOf(name, question, type, tokenEnd(semicolon));
  }

  // index := `@index` `(` [entry (`,` entry)* [`,`]] `)` `;`
  private index(): CollectionItem {
    const at = this.consume(AtIndex);
    this.consume(LParen);
    const fields: IndexField[] = [];
    if (this.startsIndexEntry(0)) {
      fields.push(this.indexEntry());
      while (this.typeAt(0) === Comma && this.startsIndexEntry(1)) {
        this.position++;
        fields.push(this.indexEntry());
      }
      this.optional(Comma);
    }
    this.consume(RParen);
    const semicolon = this.consume(Semicolon);
    return indexOf(at, fields, semicolon);
  }

  private startsIndexEntry(ahead: number): boolean {
    return this.nameAt(ahead) || this.typeAt(ahead) === LSquare;
  }

  // search := `@search` `(` [name (`,` name)* [`,`]] `)` `;`
  private search(): CollectionItem {
    const at = this.consume(AtSearch);
    this.consume(LParen);
    const fields: IdentifierNode[] = [];
    if (this.nameAt(0)) {
      fields.push(identifier(this.consumeName()));
      while (this.typeAt(0) === Comma && this.nameAt(1)) {
        this.position++;
        fields.push(identifier(this.consumeName()));
      }
      this.optional(Comma);
    }
    this.consume(RParen);
    const semicolon = this.consume(Semicolon);
    return searchOf(at, fields, semicolon);
  }

  // entry := path | `[` path `,` direction `]`
  private indexEntry(): IndexField {
    const open = this.optional(LSquare);
    if (open === undefined) return plainIndexField(this.fieldPath());
    const path = this.fieldPath();
    this.consume(Comma);
    const direction = this.consumeName();
    const close = this.consume(RSquare);
    return bracketedIndexField(open, path, direction, close, this.context);
  }

  private fieldPath(): IdentifierNode[] {
    const path = [identifier(this.consumeName())];
    while (this.optional(Dot)) path.push(identifier(this.consumeName()));
    return path;
  }

  // function := [`function`] name `(` parameters `)` [`:` type] body
  private functionDeclaration(): FunctionDeclaration {
    const keyword = this.optional(FunctionKeyword);
    const name = this.consumeName();
    this.consume(LParen);
    const parameters: Parameter[] = [];
    if (this.nameAt(0)) {
      parameters.push(this.parameter());
      while (this.typeAt(0) === Comma && this.nameAt(1)) {
        this.position++;
        parameters.push(this.parameter());
      }
      this.optional(Comma);
    }
    this.consume(RParen);
    const returnType = this.optional(Colon) ? this.type() : null;
    const body = this.consume(FunctionBody);
    return functionOf(keyword, name, parameters, returnType, body, this.context);
  }

  private parameter(): Parameter {
    const name = this.consumeName();
    const question = this.optional(Question);
    this.consume(Colon);
    const type = this.type();
    return parameterOf(name, question, type);
  }

  // type := (`map` `<` type `,` type `>` | objectType | name) (`[` `]`)*
  private type(): TypeNode {
    let type: TypeNode;
    const first = this.typeAt(0);
    if (first === MapKeyword) {
      // `map` without `<` is a name to the grammar only through its lookahead: leave that to chevrotain.
      if (this.typeAt(1) !== Less) throw GIVE_UP;
      type = this.mapType();
    } else if (first === LCurly) type = this.objectType();
    else type = namedType(this.consumeName());
    let open: IToken | undefined;
    while ((open = this.optional(LSquare))) {
      const close = this.consume(RSquare);
      type = arrayTypeOf(type, open, close, this.context);
    }
    return type;
  }

  private mapType(): TypeNode {
    const keyword = this.consume(MapKeyword);
    this.consume(Less);
    const key = this.type();
    this.consume(Comma);
    const value = this.type();
    const close = this.consume(Greater);
    return mapTypeOf(keyword, key, value, close);
  }

  // objectType := `{` (objectField (`;` | before `}`))* `}`
  private objectType(): TypeNode {
    const open = this.consume(LCurly);
    const fields: FieldDeclaration[] = [];
    while (this.typeAt(0) === Decorator || this.nameAt(0)) {
      const field = this.objectField();
      const semicolon = this.optional(Semicolon);
      if (semicolon) field.span.end = tokenEnd(semicolon);
      else if (this.typeAt(0) !== RCurly) throw GIVE_UP;
      fields.push(field);
    }
    const close = this.consume(RCurly);
    return objectTypeOf(open, fields, close);
  }

  // objectField := decorator* name [`?`] `:` type   (ends at its type; objectType extends it to its `;`)
  private objectField(): FieldDeclaration {
    const decorators = this.decorators();
    const name = this.consumeName();
    const question = this.optional(Question);
    this.consume(Colon);
    const type = this.type();
    const field = fieldOf(name, question, type, type.span.end);
    attachDecorators(field, decorators);
    return field;
  }
}
