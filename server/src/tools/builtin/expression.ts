/**
 * A small arithmetic expression evaluator for the calculator tool: a recursive-descent
 * parser over numbers, + - * / % ^, parentheses, unary signs, a few functions and
 * constants. Never `eval`: the model's text is data, not code.
 */
import { ToolError } from '../define-tool.js';

const FUNCTIONS: Record<string, (...args: number[]) => number> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  ln: Math.log,
  log: Math.log10,
  exp: Math.exp,
  min: Math.min,
  max: Math.max,
};

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E };

type Token =
  { kind: 'number'; value: number } | { kind: 'name'; value: string } | { kind: 'op'; value: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern =
    /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_]\w*)|(\*\*|[-+*/%^(),]))/y;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) {
      const rest = text.slice(at);
      const where = at + rest.length - rest.trimStart().length;
      throw new ToolError(`unexpected character "${text[where]}" at position ${where + 1}`);
    }
    if (match[1] !== undefined) tokens.push({ kind: 'number', value: Number(match[1]) });
    else if (match[2] !== undefined) tokens.push({ kind: 'name', value: match[2].toLowerCase() });
    else tokens.push({ kind: 'op', value: match[3] === '**' ? '^' : match[3]! });
    at = pattern.lastIndex;
  }
  return tokens;
}

export function evaluate(text: string): number {
  if (text.length > 1_000) throw new ToolError('the expression is longer than 1,000 characters');
  const tokens = tokenize(text);
  let position = 0;
  let depth = 0;
  const peek = () => tokens[position];
  const isOp = (value: string) => peek()?.kind === 'op' && peek()!.value === value;
  const expect = (value: string) => {
    if (!isOp(value)) throw new ToolError(`expected "${value}"`);
    position++;
  };

  // sum := product (('+' | '-') product)*
  const sum = (): number => {
    let value = product();
    while (isOp('+') || isOp('-'))
      value = tokens[position++]!.value === '+' ? value + product() : value - product();
    return value;
  };
  // product := unary (('*' | '/' | '%') unary)*
  const product = (): number => {
    let value = unary();
    while (isOp('*') || isOp('/') || isOp('%')) {
      const op = tokens[position++]!.value;
      const right = unary();
      if ((op === '/' || op === '%') && right === 0) throw new ToolError('division by zero');
      value = op === '*' ? value * right : op === '/' ? value / right : value % right;
    }
    return value;
  };
  // unary := ('+' | '-') unary | power
  const unary = (): number => {
    if (isOp('-')) return (position++, -unary());
    if (isOp('+')) return (position++, unary());
    return power();
  };
  // power := atom ('^' unary)?   (right-associative, binds tighter than a leading sign)
  const power = (): number => {
    const base = atom();
    if (!isOp('^')) return base;
    position++;
    return base ** unary();
  };
  const atom = (): number => {
    const token = peek();
    if (!token) throw new ToolError('the expression ends too early');
    if (++depth > 100) throw new ToolError('the expression nests too deeply');
    try {
      position++;
      if (token.kind === 'number') return token.value;
      if (token.kind === 'op' && token.value === '(') {
        const value = sum();
        expect(')');
        return value;
      }
      if (token.kind === 'name') {
        if (Object.hasOwn(CONSTANTS, token.value) && !isOp('(')) return CONSTANTS[token.value]!;
        const fn = Object.hasOwn(FUNCTIONS, token.value) ? FUNCTIONS[token.value] : undefined;
        if (!fn) throw new ToolError(`unknown name "${token.value}"`);
        expect('(');
        const args = [sum()];
        while (isOp(',')) {
          position++;
          args.push(sum());
        }
        expect(')');
        return fn(...args);
      }
      throw new ToolError(`unexpected "${token.value}"`);
    } finally {
      depth--;
    }
  };

  if (!tokens.length) throw new ToolError('the expression is empty');
  const value = sum();
  if (position < tokens.length) throw new ToolError(`unexpected "${tokens[position]!.value}"`);
  if (!Number.isFinite(value)) throw new ToolError('the result is not a finite number');
  return value;
}
