/**
 * A small JavaScript / TypeScript lexer, enough to find WGSL embedded in host
 * code: it knows strings, comments, regular-expression literals (told apart
 * from division by the token before them), numbers, identifiers, punctuators
 * and template literals with nested `${…}` substitutions (lexed recursively).
 *
 * It never throws: an unterminated string, comment or template ends at the end
 * of the input.
 */

export type JsTokenKind = 'ident' | 'number' | 'string' | 'template' | 'regex' | 'punct' | 'comment';

export interface JsToken {
  kind: JsTokenKind;
  /** Offsets in the host source: [start, end). */
  start: number;
  end: number;
  text: string;
  /** Cooked value of a string literal. */
  value?: string;
  /** Host offset of each character of `value`. */
  offsets?: number[];
  /** Parts of a template literal, in order. */
  parts?: TemplatePart[];
}

export type TemplatePart =
  | { kind: 'text'; start: number; end: number; cooked: string; offsets: number[] }
  | { kind: 'expr'; start: number; end: number; tokens: JsToken[] };

/** Keywords after which a `/` starts a regular expression, not a division. */
const REGEX_AFTER_WORD = new Set([
  'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await',
]);

const PUNCTUATORS = [
  '>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??=',
  '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>',
];

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };

export function lexJs(src: string): JsToken[] {
  return new Lexer(src).tokens(false);
}

class Lexer {
  private pos = 0;

  constructor(private readonly src: string) {}

  /** Lexes until the end, or (inside `${…}`) until the `}` that closes the substitution. */
  tokens(inSubstitution: boolean): JsToken[] {
    const out: JsToken[] = [];
    let depth = 0;
    while (this.pos < this.src.length) {
      const ch = this.src[this.pos];
      if (isSpace(ch)) {
        this.pos++;
        continue;
      }
      if (inSubstitution && ch === '}' && depth === 0) {
        this.pos++;
        return out;
      }
      const t = this.next(out);
      if (t.kind === 'punct' && t.text === '{') depth++;
      if (t.kind === 'punct' && t.text === '}') depth--;
      out.push(t);
    }
    return out;
  }

  private next(prev: JsToken[]): JsToken {
    const s = this.src;
    const start = this.pos;
    const ch = s[start];
    const ch2 = s[start + 1];
    if (ch === '/' && ch2 === '/') return this.lineComment(start);
    if (ch === '/' && ch2 === '*') return this.blockComment(start);
    if (ch === '"' || ch === "'") return this.string(start, ch);
    if (ch === '`') return this.template(start);
    if (isDigit(ch) || (ch === '.' && isDigit(ch2))) return this.number(start);
    if (isIdentStart(ch)) return this.ident(start);
    if (ch === '/' && regexAllowed(prev)) return this.regex(start);
    return this.punct(start);
  }

  private lineComment(start: number): JsToken {
    const nl = this.src.indexOf('\n', start);
    this.pos = nl < 0 ? this.src.length : nl;
    return this.token('comment', start);
  }

  private blockComment(start: number): JsToken {
    const close = this.src.indexOf('*/', start + 2);
    this.pos = close < 0 ? this.src.length : close + 2;
    return this.token('comment', start);
  }

  private string(start: number, quote: string): JsToken {
    let value = '';
    const offsets: number[] = [];
    this.pos++;
    while (this.pos < this.src.length) {
      const c = this.src[this.pos];
      if (c === quote) {
        this.pos++;
        break;
      }
      if (c === '\n') break;
      if (c === '\\') {
        const [text, len] = this.escape(this.pos);
        for (const ch of text) {
          value += ch;
          offsets.push(this.pos);
        }
        this.pos += len;
        continue;
      }
      value += c;
      offsets.push(this.pos);
      this.pos++;
    }
    return { ...this.token('string', start), value, offsets };
  }

  /** An escape sequence at `at` (the backslash): its cooked text and its length. */
  private escape(at: number): [string, number] {
    const c = this.src[at + 1] ?? '';
    if (c in ESCAPES) return [ESCAPES[c], 2];
    if (c === 'x') return [String.fromCharCode(parseInt(this.src.slice(at + 2, at + 4), 16) || 0), 4];
    if (c === 'u' && this.src[at + 2] === '{') {
      const close = this.src.indexOf('}', at);
      return [String.fromCodePoint(parseInt(this.src.slice(at + 3, close), 16) || 0), close - at + 1];
    }
    if (c === 'u') return [String.fromCharCode(parseInt(this.src.slice(at + 2, at + 6), 16) || 0), 6];
    if (c === '\r' && this.src[at + 2] === '\n') return ['', 3];
    if (c === '\n') return ['', 2];
    return [c, 2];
  }

  private template(start: number): JsToken {
    const parts: TemplatePart[] = [];
    this.pos++;
    let textStart = this.pos;
    let cooked = '';
    let offsets: number[] = [];
    const flush = () => {
      parts.push({ kind: 'text', start: textStart, end: this.pos, cooked, offsets });
      cooked = '';
      offsets = [];
    };
    while (this.pos < this.src.length) {
      const c = this.src[this.pos];
      if (c === '`') {
        flush();
        this.pos++;
        return { ...this.token('template', start), parts };
      }
      if (c === '\\') {
        const [text, len] = this.escape(this.pos);
        for (const ch of text) {
          cooked += ch;
          offsets.push(this.pos);
        }
        this.pos += len;
        continue;
      }
      if (c === '$' && this.src[this.pos + 1] === '{') {
        flush();
        const exprStart = this.pos;
        this.pos += 2;
        const tokens = this.tokens(true);
        parts.push({ kind: 'expr', start: exprStart, end: this.pos, tokens });
        textStart = this.pos;
        continue;
      }
      cooked += c;
      offsets.push(this.pos);
      this.pos++;
    }
    flush();
    return { ...this.token('template', start), parts };
  }

  private number(start: number): JsToken {
    const s = this.src;
    this.pos++;
    while (this.pos < s.length) {
      const c = s[this.pos];
      const exponentSign = (c === '+' || c === '-') && /[eE]/.test(s[this.pos - 1]) && !/^0[xX]/.test(s.slice(start, this.pos));
      if (!(isIdentPart(c) || c === '.' || exponentSign)) break;
      this.pos++;
    }
    return this.token('number', start);
  }

  private ident(start: number): JsToken {
    this.pos++;
    while (this.pos < this.src.length && isIdentPart(this.src[this.pos])) this.pos++;
    return this.token('ident', start);
  }

  private regex(start: number): JsToken {
    const s = this.src;
    let inClass = false;
    this.pos++;
    while (this.pos < s.length) {
      const c = s[this.pos];
      if (c === '\n') break;
      if (c === '\\') {
        this.pos += 2;
        continue;
      }
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) {
        this.pos++;
        while (this.pos < s.length && isIdentPart(s[this.pos])) this.pos++;
        break;
      }
      this.pos++;
    }
    return this.token('regex', start);
  }

  private punct(start: number): JsToken {
    const p = PUNCTUATORS.find((x) => this.src.startsWith(x, start));
    this.pos += p ? p.length : 1;
    return this.token('punct', start);
  }

  private token(kind: JsTokenKind, start: number): JsToken {
    return { kind, start, end: this.pos, text: this.src.slice(start, this.pos) };
  }
}

/** A `/` starts a regex unless the previous significant token ends an expression. */
function regexAllowed(prev: JsToken[]): boolean {
  for (let i = prev.length - 1; i >= 0; i--) {
    const t = prev[i];
    if (t.kind === 'comment') continue;
    if (t.kind === 'ident') return REGEX_AFTER_WORD.has(t.text);
    if (t.kind === 'number' || t.kind === 'string' || t.kind === 'template' || t.kind === 'regex') return false;
    return !(t.text === ')' || t.text === ']' || t.text === '}' || t.text === '++' || t.text === '--');
  }
  return true;
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0' || c === '\ufeff' || c === '\u2028' || c === '\u2029';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isIdentStart(c: string): boolean {
  return c === '$' || c === '_' || c === '#' || /\p{ID_Start}/u.test(c);
}

function isIdentPart(c: string): boolean {
  return c === '$' || c === '_' || c === '\u200c' || c === '\u200d' || /\p{ID_Continue}/u.test(c);
}
