/**
 * The expression language of CALCULATED fields: numbers, references to
 * numeric fields, `+ - * /`, parentheses, unary minus and the functions
 * `min(a, b, …)`, `max(a, b, …)`, `abs(x)`, `round(x)` / `round(x, digits)`.
 *
 * A small recursive-descent parser of our own, never `eval` or `Function`:
 * whatever an author types is either one of these trees or a parse error
 * with its position, so nothing a template holds can run code on the server.
 *
 * References: `KEY` (a field of the same step) or `STEP_ID.KEY` (a field of
 * an earlier step). Names are letters, digits and `_` joined by dots; a field
 * key holding `-` cannot be referenced (rename it with `_`).
 */

export type Expr =
  | { kind: 'num'; value: number }
  | { kind: 'ref'; name: string }
  | { kind: 'neg'; arg: Expr }
  | { kind: 'bin'; op: '+' | '-' | '*' | '/'; left: Expr; right: Expr }
  | { kind: 'call'; fn: FunctionName; args: Expr[] };

const FUNCTIONS = { min: [1, 50], max: [1, 50], abs: [1, 1], round: [1, 2] } as const;
type FunctionName = keyof typeof FUNCTIONS;

export const MAX_EXPRESSION_LENGTH = 500;
const MAX_DEPTH = 32;

export class ExpressionError extends Error {}

type Token =
  | { t: 'num'; v: number; at: number }
  | { t: 'name'; v: string; at: number }
  | { t: 'op'; v: string; at: number }
  | { t: 'end'; at: number };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const number = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(source.slice(i));
    if (number) {
      tokens.push({ t: 'num', v: Number(number[0]), at: i });
      i += number[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*/.exec(source.slice(i));
    if (name) {
      tokens.push({ t: 'name', v: name[0], at: i });
      i += name[0].length;
      continue;
    }
    if ('+-*/(),'.includes(c)) {
      tokens.push({ t: 'op', v: c, at: i });
      i++;
      continue;
    }
    throw new ExpressionError(`unexpected "${c}" at ${i + 1}`);
  }
  tokens.push({ t: 'end', at: source.length });
  return tokens;
}

/**
 * Parses an expression.
 * @throws ExpressionError saying what is wrong and where (1-based character position)
 */
export function parseExpression(source: string): Expr {
  if (source.length > MAX_EXPRESSION_LENGTH) throw new ExpressionError(`longer than ${MAX_EXPRESSION_LENGTH} characters`);
  const tokens = tokenize(source);
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (v: string) => {
    const token = peek();
    return token.t === 'op' && token.v === v;
  };
  const expect = (v: string) => {
    if (!isOp(v)) throw new ExpressionError(`expected "${v}" at ${peek().at + 1}`);
    pos++;
  };
  const sum = (depth: number): Expr => {
    if (depth > MAX_DEPTH) throw new ExpressionError(`nested deeper than ${MAX_DEPTH}`);
    let left = product(depth);
    while (isOp('+') || isOp('-')) {
      const op = (tokens[pos++] as { v: '+' | '-' }).v;
      left = { kind: 'bin', op, left, right: product(depth) };
    }
    return left;
  };
  const product = (depth: number): Expr => {
    let left = unary(depth);
    while (isOp('*') || isOp('/')) {
      const op = (tokens[pos++] as { v: '*' | '/' }).v;
      left = { kind: 'bin', op, left, right: unary(depth) };
    }
    return left;
  };
  const unary = (depth: number): Expr => {
    if (isOp('-')) {
      pos++;
      if (depth > MAX_DEPTH) throw new ExpressionError(`nested deeper than ${MAX_DEPTH}`);
      return { kind: 'neg', arg: unary(depth + 1) };
    }
    if (isOp('+')) {
      pos++;
      return unary(depth + 1);
    }
    return primary(depth);
  };
  const primary = (depth: number): Expr => {
    const token = peek();
    if (token.t === 'num') {
      pos++;
      if (!Number.isFinite(token.v)) throw new ExpressionError(`number out of range at ${token.at + 1}`);
      return { kind: 'num', value: token.v };
    }
    if (token.t === 'op' && token.v === '(') {
      pos++;
      const inner = sum(depth + 1);
      expect(')');
      return inner;
    }
    if (token.t === 'name') {
      pos++;
      if (!isOp('(')) return { kind: 'ref', name: token.v };
      if (!Object.hasOwn(FUNCTIONS, token.v))
        throw new ExpressionError(`unknown function "${token.v}" at ${token.at + 1} (min, max, abs, round)`);
      const fn = token.v as FunctionName;
      pos++;
      const args: Expr[] = [];
      if (!isOp(')')) {
        args.push(sum(depth + 1));
        while (isOp(',')) {
          pos++;
          args.push(sum(depth + 1));
        }
      }
      expect(')');
      const [least, most] = FUNCTIONS[fn];
      if (args.length < least || args.length > most)
        throw new ExpressionError(`${fn} takes ${least === most ? least : `${least} to ${most}`} argument(s), got ${args.length}`);
      if (
        fn === 'round' &&
        args[1] &&
        !(args[1].kind === 'num' && Number.isInteger(args[1].value) && args[1].value >= 0 && args[1].value <= 10)
      ) {
        throw new ExpressionError("round's digits must be a whole number from 0 to 10");
      }
      return { kind: 'call', fn, args };
    }
    if (token.t === 'end') throw new ExpressionError('unexpected end of the expression');
    throw new ExpressionError(`unexpected "${token.v}" at ${token.at + 1}`);
  };
  const tree = sum(0);
  if (peek().t !== 'end') throw new ExpressionError(`unexpected "${(peek() as { v: string }).v}" at ${peek().at + 1}`);
  return tree;
}

/** Every reference of the expression, as written. */
export function referencesOf(expr: Expr): string[] {
  switch (expr.kind) {
    case 'num':
      return [];
    case 'ref':
      return [expr.name];
    case 'neg':
      return referencesOf(expr.arg);
    case 'bin':
      return [...referencesOf(expr.left), ...referencesOf(expr.right)];
    case 'call':
      return expr.args.flatMap(referencesOf);
  }
}

/**
 * What a reference names: `KEY` in `ownStep`, or `STEP.KEY` when the part
 * before the first dot is a step id `isStep` knows (a key may itself hold dots).
 */
export function resolveReference(name: string, ownStep: string, isStep: (id: string) => boolean): { stepId: string; key: string } {
  const dot = name.indexOf('.');
  if (dot > 0 && isStep(name.slice(0, dot))) return { stepId: name.slice(0, dot), key: name.slice(dot + 1) };
  return { stepId: ownStep, key: name };
}

/** A computed value: a number, nothing yet (an input is empty), or an error the record keeps and the PDF shows. */
export type Computed = { value: number } | { value: null } | { error: string };

/**
 * Evaluates the expression; `lookup` gives a reference's recorded value
 * (undefined: nothing recorded yet).
 */
export function evaluateExpression(expr: Expr, lookup: (name: string) => unknown): Computed {
  let missing = false;
  const run = (e: Expr): number => {
    switch (e.kind) {
      case 'num':
        return e.value;
      case 'ref': {
        const value = lookup(e.name);
        if (value === undefined || value === null || value === '') {
          missing = true;
          return 0;
        }
        if (typeof value !== 'number' || !Number.isFinite(value)) throw new ExpressionError(`"${e.name}" is not a number`);
        return value;
      }
      case 'neg':
        return -run(e.arg);
      case 'bin': {
        const left = run(e.left);
        const right = run(e.right);
        if (e.op === '+') return left + right;
        if (e.op === '-') return left - right;
        if (e.op === '*') return left * right;
        if (right === 0 && !missing) throw new ExpressionError('division by zero');
        return right === 0 ? 0 : left / right;
      }
      case 'call': {
        const args = e.args.map(run);
        if (e.fn === 'min') return Math.min(...args);
        if (e.fn === 'max') return Math.max(...args);
        if (e.fn === 'abs') return Math.abs(args[0]);
        const factor = 10 ** (args[1] ?? 0);
        // round half away from zero, on the decimal the author sees (1.005 → 1.01 rather than binary's 1.00)
        return (Math.sign(args[0]) * Math.round(Number((Math.abs(args[0]) * factor).toPrecision(15)))) / factor;
      }
    }
  };
  try {
    const value = run(expr);
    if (missing) return { value: null };
    if (!Number.isFinite(value)) return { error: 'the result is not a finite number' };
    return { value: Object.is(value, -0) ? 0 : value };
  } catch (error) {
    if (error instanceof ExpressionError) return { error: error.message };
    throw error;
  }
}
