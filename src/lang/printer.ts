// The canonical text of a program: what `vellum fmt` prints.
//
// Layout: 2-space indentation, one item or statement per line, collection and function decorators on
// their own lines, field decorators inline, a blank line around every function. Expressions get the
// fewest parentheses that make JavaScript parse them back into the same tree, so for any tree the
// parser can produce, `parse(print(tree))` gives that tree again (spans aside).

import type {
  AssignmentExpression,
  BinaryOperator,
  BlockStatement,
  Collection,
  CollectionItem,
  Decorator,
  Expression,
  FieldDeclaration,
  FunctionDeclaration,
  IndexDeclaration,
  LogicalOperator,
  Parameter,
  Program,
  Statement,
  TypeNode,
  VariableDeclaration,
} from './ast.ts';
import type { AttachedComments, Comment } from './comments.ts';

const INDENT = '  ';

/**
 * Comments to print around the nodes (comments.ts finds them; format.ts passes them). Set only while `print`
 * runs, which is synchronous; without comments every hook below is a no-op.
 */
let comments: AttachedComments | undefined;

export function print(program: Program, attached?: AttachedComments): string {
  comments = attached;
  try {
    const collections = program.collections.map((collection) => withComments(collection, printCollection(collection), '').join('\n'));
    const end = danglingComments(program, '');
    if (end.length > 0) collections.push(end.join('\n'));
    return collections.length === 0 ? '' : collections.join('\n\n') + '\n';
  } finally {
    comments = undefined;
  }
}

/** A child's lines with its leading comments before it and its trailing ones at the end of its last line. */
function withComments(node: Collection | CollectionItem | Statement, lines: string[], indent: string): string[] {
  const leading = comments?.leading.get(node);
  const trailing = comments?.trailing.get(node);
  if (!leading && !trailing) return lines;
  const result = [...(leading ?? []).flatMap((comment) => commentLines(comment, indent)), ...lines];
  if (trailing) result[result.length - 1] += ' ' + trailing.map((comment) => commentLines(comment, indent).join('\n').trimStart()).join(' ');
  return result;
}

/** The comments after a container's last child, each on its own lines. */
function danglingComments(container: Program | Collection | BlockStatement, indent: string): string[] {
  return (comments?.dangling.get(container) ?? []).flatMap((comment) => commentLines(comment, indent));
}

/** A comment at an indentation: a block comment's later lines are re-indented (` *` under the `/*`, text after it). */
function commentLines(comment: Comment, indent: string): string[] {
  return comment.text.split(/\r?\n|\r/).map((line, i) => {
    if (i === 0) return indent + line;
    const text = line.trim();
    return text === '' ? '' : indent + (text.startsWith('*') ? ' ' : '   ') + text;
  });
}

// ---------------------------------------------------------------------------------------------
// Schema structure

function printCollection(collection: Collection): string[] {
  const lines = collection.decorators.map(printDecorator);
  const head = `${collection.contractKeyword ? 'contract' : 'collection'} ${collection.name.name} {`;
  const end = danglingComments(collection, INDENT);
  if (collection.items.length === 0 && end.length === 0) return [...lines, `${head}}`];
  lines.push(head);
  collection.items.forEach((item, i) => {
    const previous = collection.items[i - 1];
    if (previous && (previous.kind === 'function' || item.kind === 'function')) lines.push('');
    lines.push(...withComments(item, printItem(item, INDENT), INDENT));
  });
  lines.push(...end, '}');
  return lines;
}

function printItem(item: CollectionItem, indent: string): string[] {
  switch (item.kind) {
    case 'field':
      return [indent + printField(item, indent)];
    case 'index':
      return [indent + printIndex(item)];
    case 'search':
      return [indent + `@search(${item.fields.map((field) => field.name).join(', ')});`];
    case 'function':
      return printFunction(item, indent);
  }
}

function printDecorator(decorator: Decorator): string {
  if (decorator.arguments === null) return `@${decorator.name}`;
  // Polylang separates decorator arguments with whitespace, not commas.
  const keys = (decorator.keys ?? []).map((key) => key.text);
  return `@${decorator.name}(${[...decorator.arguments.map((a) => a.name), ...keys].join(' ')})`;
}

function printField(field: FieldDeclaration, indent: string): string {
  const decorators = field.decorators.map((d) => printDecorator(d) + ' ').join('');
  return `${decorators}${field.name.name}${field.optional ? '?' : ''}: ${printType(field.type, indent)};`;
}

function printIndex(index: IndexDeclaration): string {
  const fields = index.fields.map((field) => {
    const path = field.path.map((segment) => segment.name).join('.');
    return field.bracketed ? `[${path}, ${field.direction}]` : path;
  });
  return `@index(${fields.join(', ')});`;
}

/**
 * The type on one line, as Polybase prints it in messages: `string[]`, `map<string, number>`,
 * `{ a: string; b?: number; }`. (`printType` lays object types out over several lines for schema text.)
 */
export function typeText(type: TypeNode): string {
  switch (type.kind) {
    case 'objectType':
      return type.fields.length === 0
        ? '{}'
        : `{ ${type.fields.map((f) => `${f.name.name}${f.optional ? '?' : ''}: ${typeText(f.type)};`).join(' ')} }`;
    case 'arrayType':
      return `${typeText(type.element)}[]`;
    case 'mapType':
      return `map<${typeText(type.key)}, ${typeText(type.value)}>`;
    default:
      return printType(type);
  }
}

/** `indent` is the indentation of the line the type starts on (object types span several lines). */
export function printType(type: TypeNode, indent = ''): string {
  switch (type.kind) {
    case 'primitiveType':
    case 'sizedNumberType':
      return type.name;
    case 'publicKeyType':
      return 'PublicKey';
    case 'recordType':
      return 'record';
    case 'referenceType':
      return type.collection.name;
    case 'arrayType':
      return `${printType(type.element, indent)}[]`;
    case 'mapType':
      return `map<${printType(type.key, indent)}, ${printType(type.value, indent)}>`;
    case 'objectType': {
      if (type.fields.length === 0) return '{}';
      const inner = indent + INDENT;
      const fields = type.fields.map((field) => inner + printField(field, inner));
      return ['{', ...fields, `${indent}}`].join('\n');
    }
  }
}

function printParameter(parameter: Parameter): string {
  return `${parameter.name.name}${parameter.optional ? '?' : ''}: ${printType(parameter.type)}`;
}

function printFunction(fn: FunctionDeclaration, indent: string): string[] {
  const lines = fn.decorators.map((d) => indent + printDecorator(d));
  const keyword = fn.functionKeyword ? 'function ' : '';
  const returnType = fn.returnType ? `: ${printType(fn.returnType, indent)}` : '';
  const head = `${keyword}${fn.name.name} (${fn.parameters.map(printParameter).join(', ')})${returnType}`;
  lines.push(...printBlock(head, fn.body, indent));
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Statements

/** `head {` … `}`, or `head {}` when the block is empty. */
function printBlock(head: string, block: BlockStatement, indent: string): string[] {
  const prefix = head === '' ? '' : head + ' ';
  const inner = indent + INDENT;
  const end = danglingComments(block, inner);
  if (block.body.length === 0 && end.length === 0) return [`${indent}${prefix}{}`];
  return [`${indent}${prefix}{`, ...block.body.flatMap((s) => withComments(s, printStatement(s, inner), inner)), ...end, `${indent}}`];
}

/** The body of `if`, `while`, `for`: a block after the head, or a single statement on the same line. */
function printBody(head: string, body: Statement, indent: string): string[] {
  if (body.kind === 'block') return printBlock(head, body, indent);
  // A declaration cannot stand alone as a body: keep its meaning with braces.
  if (body.kind === 'variable') return printBlock(head, { kind: 'block', body: [body], span: body.span }, indent);
  const lines = printStatement(body, indent + INDENT);
  if (lines.length === 1) return [`${indent}${head} ${lines[0]!.trimStart()}`];
  return [indent + head, ...lines];
}

export function printStatement(statement: Statement, indent = ''): string[] {
  switch (statement.kind) {
    case 'block':
      return printBlock('', statement, indent);
    case 'variable':
      return [`${indent}${printVariable(statement)};`];
    case 'expressionStatement': {
      const text = printExpression(statement.expression);
      // `{` at the start of a statement would open a block, and `let [` a declaration.
      const ambiguous = text.startsWith('{') || /^let\s*\[/.test(text);
      return [`${indent}${ambiguous ? `(${text})` : text};`];
    }
    case 'if':
      return printIf(statement, indent);
    case 'while':
      return printBody(`while (${printExpression(statement.test)})`, statement.body, indent);
    case 'for': {
      const init =
        statement.init === null
          ? ''
          : statement.init.kind === 'variable'
            ? printVariable(statement.init)
            : printExpression(statement.init);
      const test = statement.test ? ' ' + printExpression(statement.test) : '';
      const update = statement.update ? ' ' + printExpression(statement.update) : '';
      return printBody(`for (${init};${test};${update})`, statement.body, indent);
    }
    case 'forOf': {
      const head = `for (${statement.declarationKind} ${statement.name.name} ${statement.forIn ? 'in' : 'of'} ${printExpression(statement.iterable, Precedence.assignment)})`;
      return printBody(head, statement.body, indent);
    }
    case 'break':
      return [`${indent}break;`];
    case 'continue':
      return [`${indent}continue;`];
    case 'return':
      return [`${indent}return${statement.argument ? ' ' + printExpression(statement.argument) : ''};`];
    case 'throw':
      return [`${indent}throw ${printExpression(statement.argument)};`];
  }
}

function printVariable(declaration: VariableDeclaration): string {
  const init = declaration.init ? ` = ${printExpression(declaration.init)}` : '';
  const type = declaration.typeAnnotation ? `: ${printType(declaration.typeAnnotation)}` : '';
  return `${declaration.declarationKind} ${declaration.name.name}${type}${init}`;
}

function printIf(statement: Extract<Statement, { kind: 'if' }>, indent: string): string[] {
  const alternate = statement.alternate;
  let consequent = statement.consequent;
  // `if (a) if (b) x; else y;` gives the `else` to the inner `if`: an outer `else` needs braces.
  if (alternate !== null && endsWithOpenIf(consequent)) consequent = { kind: 'block', body: [consequent], span: consequent.span };
  const lines = printBody(`if (${printExpression(statement.test)})`, consequent, indent);
  if (alternate === null) return lines;
  const elseLines =
    alternate.kind === 'if'
      ? printIf(alternate, indent).map((line, i) => (i === 0 ? `${indent}else ${line.trimStart()}` : line))
      : printBody('else', alternate, indent);
  if (consequent.kind === 'block') {
    // `} else …` on the closing brace's line.
    lines[lines.length - 1] += ' ' + elseLines[0]!.trimStart();
    lines.push(...elseLines.slice(1));
  } else {
    lines.push(...elseLines);
  }
  return lines;
}

/** Whether an `else` written after `statement` would attach to an `if` inside it. */
function endsWithOpenIf(statement: Statement): boolean {
  switch (statement.kind) {
    case 'if':
      return statement.alternate === null || endsWithOpenIf(statement.alternate);
    case 'while':
    case 'for':
    case 'forOf':
      return endsWithOpenIf(statement.body);
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Expressions

/** JavaScript precedence levels, loosest first (higher binds tighter). */
const Precedence = {
  assignment: 1,
  conditional: 2,
  // binary and logical operators: 3..13, see BINARY_PRECEDENCE
  unary: 14,
  update: 15,
  member: 17, // member access, index, call
  primary: 18,
} as const;

const BINARY_PRECEDENCE: Record<BinaryOperator | LogicalOperator, number> = {
  '??': 3,
  '||': 3,
  '&&': 4,
  '|': 5,
  '^': 6,
  '&': 7,
  '==': 8,
  '!=': 8,
  '===': 8,
  '!==': 8,
  '<': 9,
  '<=': 9,
  '>': 9,
  '>=': 9,
  '<<': 10,
  '>>': 10,
  '>>>': 10,
  '+': 11,
  '-': 11,
  '*': 12,
  '/': 12,
  '%': 12,
  '**': 13,
};

function precedenceOf(expression: Expression): number {
  switch (expression.kind) {
    case 'assignment':
      return Precedence.assignment;
    case 'conditional':
      return Precedence.conditional;
    case 'binary':
    case 'logical':
      return BINARY_PRECEDENCE[expression.operator];
    case 'unary':
      return Precedence.unary;
    case 'update':
      return Precedence.update;
    case 'member':
    case 'index':
    case 'call':
      return Precedence.member;
    default:
      return Precedence.primary;
  }
}

/** Prints `expression`, in parentheses when it binds looser than `minimum`. */
export function printExpression(expression: Expression, minimum: number = Precedence.assignment): string {
  const text = printBare(expression);
  return precedenceOf(expression) < minimum ? `(${text})` : text;
}

function parenthesised(text: string): string {
  return `(${text})`;
}

function printBare(expression: Expression): string {
  switch (expression.kind) {
    case 'number':
      return printNumber(expression.value);
    case 'string':
      return printString(expression.value);
    case 'boolean':
      return String(expression.value);
    case 'null':
      return 'null';
    case 'identifierExpression':
      return expression.name;
    case 'this':
      return 'this';
    case 'arrayLiteral':
      return `[${expression.elements.map((e) => printExpression(e)).join(', ')}]`;
    case 'objectLiteral':
      if (expression.properties.length === 0) return '{}';
      return `{ ${expression.properties.map((p) => `${p.key.name}: ${printExpression(p.value)}`).join(', ')} }`;
    case 'member': {
      let object = printExpression(expression.object, Precedence.member);
      // `1.x` would read as the number `1.` followed by `x`.
      if (expression.object.kind === 'number' && /^\d+$/.test(object)) object = parenthesised(object);
      return `${object}.${expression.property.name}`;
    }
    case 'index':
      return `${printExpression(expression.object, Precedence.member)}[${printExpression(expression.index)}]`;
    case 'call':
      return `${printExpression(expression.callee, Precedence.member)}(${expression.arguments.map((a) => printExpression(a)).join(', ')})`;
    case 'unary': {
      const argument = printExpression(expression.argument, Precedence.unary);
      if (expression.operator === 'delete') return `delete ${argument}`;
      // `-(-x)` must not become `--x`, nor `+(+x)` become `++x`.
      const fuses = (expression.operator === '-' || expression.operator === '+') && argument.startsWith(expression.operator);
      if (fuses) return `${expression.operator}(${argument})`;
      return expression.operator + argument;
    }
    case 'update': {
      const argument = printExpression(expression.argument, Precedence.member);
      return expression.prefix ? expression.operator + argument : argument + expression.operator;
    }
    case 'binary':
    case 'logical':
      return printBinary(expression.operator, expression.left, expression.right);
    case 'conditional':
      return `${printExpression(expression.test, Precedence.conditional + 1)} ? ${printExpression(expression.consequent)} : ${printExpression(expression.alternate)}`;
    case 'assignment':
      return printAssignment(expression);
  }
}

function printBinary(operator: BinaryOperator | LogicalOperator, left: Expression, right: Expression): string {
  const precedence = BINARY_PRECEDENCE[operator];
  // `**` is right-associative, and its left operand may not be a unary expression (`(-a) ** b`).
  const leftMinimum = operator === '**' ? Precedence.update : precedence;
  const rightMinimum = operator === '**' ? precedence : precedence + 1;
  // JavaScript forbids mixing `??` with `&&` or `||` without parentheses.
  const leftText = mixesNullish(operator, left) ? parenthesised(printBare(left)) : printExpression(left, leftMinimum);
  const rightText = mixesNullish(operator, right) ? parenthesised(printBare(right)) : printExpression(right, rightMinimum);
  return `${leftText} ${operator} ${rightText}`;
}

function mixesNullish(operator: BinaryOperator | LogicalOperator, operand: Expression): boolean {
  if (operand.kind !== 'logical') return false;
  return (operator === '??') !== (operand.operator === '??') && (operator === '??' || operator === '&&' || operator === '||');
}

function printAssignment(expression: AssignmentExpression): string {
  return `${printExpression(expression.target, Precedence.member)} ${expression.operator} ${printExpression(expression.value)}`;
}

// ---------------------------------------------------------------------------------------------
// Literals

/** The shortest text that reads back as the same number (`1e+21`, `5e-7`, `0.1`). */
export function printNumber(value: number): string {
  if (!Number.isFinite(value) || value < 0 || Object.is(value, -0)) {
    throw new RangeError(`cannot print the number ${value}: literals are finite and not negative`);
  }
  return String(value);
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '\v': '\\v',
};

/**
 * A string literal whose cooked value is exactly `value`: single-quoted, unless the text has more
 * single quotes than double quotes (then double-quoted, as Prettier does). Besides reading better,
 * this keeps `"it's"` free of escapes, which Polylang 0.6 did not understand.
 */
export function printString(value: string): string {
  const singles = value.split("'").length - 1;
  const doubles = value.split('"').length - 1;
  const quote = singles > doubles ? '"' : "'";
  let out = quote;
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    const code = value.charCodeAt(i);
    const simple = SIMPLE_ESCAPES[char];
    if (simple !== undefined) {
      out += simple;
    } else if (char === quote) {
      out += '\\' + quote;
    } else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(value.charCodeAt(i + 1))) {
      out += char + value[i + 1]!; // a well-formed pair stays as written
      i++;
    } else if (code < 0x20 || code === 0x7f || (code >= 0xd800 && code <= 0xdfff) || code === 0x2028 || code === 0x2029) {
      out += '\\u' + code.toString(16).padStart(4, '0');
    } else {
      out += char;
    }
  }
  return out + quote;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
