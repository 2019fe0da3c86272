/**
 * A small Itanium C++ ABI demangler for the names GPU kernels actually have:
 * free functions and function templates in namespaces, template arguments
 * (types, integer and bool literals, packs), pointers, references, cv
 * qualifiers, substitutions (`S_`, `S0_`, `Sa`…), template parameters
 * (`T_`), anonymous namespaces, ABI tags and clone suffixes. The output
 * follows GNU c++filt (`float const*`, `Array<char*, 1> >`).
 *
 * Bounded and total: anything outside that subset (lambdas, local names,
 * function or member pointers, expressions) and any malformed or oversized
 * input returns the input unchanged. It never throws.
 */

const MAX_INPUT = 4096;
const MAX_OUTPUT = 8192;
const MAX_DEPTH = 64;

/** The demangled form of `name`, or `name` itself when it cannot be demangled. */
export function demangle(name: string): string {
  if (!name.startsWith('_Z') || name.length > MAX_INPUT) return name;
  try {
    const out = new Demangler(name).run();
    return out.length > MAX_OUTPUT ? name : out;
  } catch {
    return name;
  }
}

class Unsupported extends Error {}

const BUILTIN: Record<string, string> = {
  v: 'void',
  w: 'wchar_t',
  b: 'bool',
  c: 'char',
  a: 'signed char',
  h: 'unsigned char',
  s: 'short',
  t: 'unsigned short',
  i: 'int',
  j: 'unsigned int',
  l: 'long',
  m: 'unsigned long',
  x: 'long long',
  y: 'unsigned long long',
  n: '__int128',
  o: 'unsigned __int128',
  f: 'float',
  d: 'double',
  e: 'long double',
  g: '__float128',
  z: '...',
};

const BUILTIN_D: Record<string, string> = {
  h: 'half',
  n: 'decltype(nullptr)',
  s: 'char16_t',
  i: 'char32_t',
  u: 'char8_t',
};

const ABBREVIATIONS: Record<string, string> = {
  a: 'std::allocator',
  b: 'std::basic_string',
  s: 'std::string',
  i: 'std::istream',
  o: 'std::ostream',
  d: 'std::iostream',
};

/** How integer literal template arguments print: `128`, `128u`, `7l`, `(char)65`. */
const LITERAL_SUFFIX: Record<string, string> = { i: '', j: 'u', l: 'l', m: 'ul', x: 'll', y: 'ull' };

interface Name {
  text: string;
  /** True when the name ends in template arguments (a function template: its return type is encoded). */
  isTemplate: boolean;
}

class Demangler {
  private pos = 2;
  private depth = 0;
  private readonly subs: string[] = [];
  private tparams: string[] | null = null;

  constructor(private readonly s: string) {}

  run(): string {
    const name = this.name(true);
    if (this.atEnd() || this.peek() === '.') return name.text + this.cloneSuffix();
    const ret = name.isTemplate ? this.type() + ' ' : '';
    const params: string[] = [];
    while (!this.atEnd() && this.peek() !== '.') params.push(this.type());
    const list = params.length === 1 && params[0] === 'void' ? '' : params.join(', ');
    return `${ret}${name.text}(${list})${this.cloneSuffix()}`;
  }

  // ---- names ---------------------------------------------------------------

  private name(encoding: boolean): Name {
    const c = this.peek();
    if (c === 'N') return this.nested(encoding);
    if (c === 'Z') throw new Unsupported('local name');
    let text: string;
    if (c === 'S' && this.peek(1) === 't') {
      this.pos += 2;
      text = 'std::' + this.unqualified();
    } else if (c === 'S') {
      text = this.substitution();
      if (this.peek() !== 'I') throw new Unsupported('substituted function name');
      return this.withArgs(text, encoding, false);
    } else {
      text = this.unqualified();
    }
    if (this.peek() === 'I') return this.withArgs(text, encoding, true);
    return { text, isTemplate: false };
  }

  /** An unscoped template name followed by its arguments. */
  private withArgs(text: string, encoding: boolean, pushName: boolean): Name {
    if (pushName) this.push(text);
    const args = this.templateArgs();
    if (encoding) this.tparams = args.list;
    return { text: text + args.text, isTemplate: true };
  }

  private nested(encoding: boolean): Name {
    this.expect('N');
    while (this.peekIsOneOf('rVKRO')) this.pos++;
    let prefix = '';
    let fromSubstitution = false;
    let lastArgs: string[] | null = null;
    while (this.peek() !== 'E') {
      this.guard();
      lastArgs = null;
      const c = this.peek();
      if (c === 'S' && prefix === '') {
        if (this.peek(1) === 't') {
          this.pos += 2;
          prefix = 'std::' + this.unqualified();
        } else {
          prefix = this.substitution();
          fromSubstitution = true;
        }
      } else if (c === 'T' && prefix === '') {
        prefix = this.templateParam();
      } else if (c === 'I') {
        if (prefix === '') throw new Unsupported('template arguments without a name');
        const args = this.templateArgs();
        prefix += args.text;
        lastArgs = args.list;
      } else {
        const part = this.unqualified();
        prefix = prefix ? `${prefix}::${part}` : part;
      }
      if (this.peek() !== 'E' && !fromSubstitution) this.push(prefix);
      fromSubstitution = false;
    }
    this.expect('E');
    if (encoding && lastArgs) this.tparams = lastArgs;
    return { text: prefix, isTemplate: lastArgs !== null };
  }

  private unqualified(): string {
    if (this.peek() === 'L') this.pos++;
    if (!isDigit(this.peek())) throw new Unsupported(`name component '${this.peek()}'`);
    let text = this.sourceName();
    while (this.peek() === 'B') {
      this.pos++;
      text += `[abi:${this.sourceName()}]`;
    }
    return text;
  }

  private sourceName(): string {
    const n = this.number();
    if (n <= 0 || this.pos + n > this.s.length) throw new Unsupported('bad identifier length');
    const id = this.s.slice(this.pos, this.pos + n);
    this.pos += n;
    return id.startsWith('_GLOBAL__N') ? '(anonymous namespace)' : id;
  }

  private substitution(): string {
    this.expect('S');
    const c = this.peek();
    if (c in ABBREVIATIONS) {
      this.pos++;
      return ABBREVIATIONS[c];
    }
    const index = this.seqId();
    const sub = this.subs[index];
    if (sub === undefined) throw new Unsupported('substitution out of range');
    return sub;
  }

  /** `_` → 0, `<base-36>_` → n + 1. */
  private seqId(): number {
    let n = 0;
    let digits = 0;
    while (this.peek() !== '_') {
      const c = this.peek();
      const v = isDigit(c) ? c.charCodeAt(0) - 48 : c >= 'A' && c <= 'Z' ? c.charCodeAt(0) - 55 : -1;
      if (v < 0 || ++digits > 6) throw new Unsupported('bad sequence id');
      n = n * 36 + v;
      this.pos++;
    }
    this.pos++;
    return digits === 0 ? 0 : n + 1;
  }

  private templateParam(): string {
    this.expect('T');
    const index = this.seqId();
    const arg = this.tparams?.[index];
    if (arg === undefined) throw new Unsupported('template parameter out of range');
    return arg;
  }

  private templateArgs(): { text: string; list: string[] } {
    this.expect('I');
    const list: string[] = [];
    while (this.peek() !== 'E') {
      this.guard();
      list.push(...this.templateArg());
    }
    this.pos++;
    const joined = list.join(', ');
    return { text: `<${joined}${joined.endsWith('>') ? ' ' : ''}>`, list };
  }

  private templateArg(): string[] {
    const c = this.peek();
    if (c === 'L') return [this.literal()];
    if (c === 'X') throw new Unsupported('expression template argument');
    if (c === 'J') {
      this.pos++;
      const pack: string[] = [];
      while (this.peek() !== 'E') {
        this.guard();
        pack.push(...this.templateArg());
      }
      this.pos++;
      return pack;
    }
    return [this.type()];
  }

  private literal(): string {
    this.expect('L');
    const c = this.peek();
    if (c === '_') throw new Unsupported('external name literal');
    let type: string;
    let code = '';
    if (c in BUILTIN) {
      code = c;
      type = BUILTIN[c];
      this.pos++;
    } else {
      type = this.type();
    }
    const negative = this.peek() === 'n';
    if (negative) this.pos++;
    const start = this.pos;
    while (isDigit(this.peek())) this.pos++;
    if (this.pos === start) throw new Unsupported('non-integer literal');
    const value = (negative ? '-' : '') + this.s.slice(start, this.pos);
    this.expect('E');
    if (code === 'b' && (value === '0' || value === '1')) return value === '1' ? 'true' : 'false';
    if (code in LITERAL_SUFFIX) return value + LITERAL_SUFFIX[code];
    return `(${type})${value}`;
  }

  // ---- types ---------------------------------------------------------------

  private type(): string {
    this.guard();
    this.depth++;
    try {
      return this.typeInner();
    } finally {
      this.depth--;
    }
  }

  private typeInner(): string {
    const c = this.peek();
    if (c in BUILTIN) {
      this.pos++;
      return BUILTIN[c];
    }
    switch (c) {
      case 'D':
        return this.builtinD();
      case 'u': {
        this.pos++;
        return this.push(this.sourceName());
      }
      case 'r':
      case 'V':
      case 'K':
        return this.qualified();
      case 'P':
        this.pos++;
        return this.push(this.type() + '*');
      case 'R':
        this.pos++;
        return this.push(this.type() + '&');
      case 'O':
        this.pos++;
        return this.push(this.type() + '&&');
      case 'N':
        return this.push(this.nested(false).text);
      case 'S':
        return this.substitutedType();
      case 'T': {
        const param = this.push(this.templateParam());
        return this.peek() === 'I' ? this.push(param + this.templateArgs().text) : param;
      }
      default:
        if (isDigit(c)) return this.classType();
        throw new Unsupported(`type '${c}'`);
    }
  }

  private builtinD(): string {
    this.expect('D');
    const c = this.peek();
    if (c in BUILTIN_D) {
      this.pos++;
      return BUILTIN_D[c];
    }
    if (c === 'F') {
      this.pos++;
      const bits = this.number();
      this.expect('_');
      return `_Float${bits}`;
    }
    throw new Unsupported(`type 'D${c}'`);
  }

  /** cv-qualified type: `Kf` → `float const`, printed in GNU order. */
  private qualified(): string {
    let quals = '';
    while (this.peekIsOneOf('rVK')) quals += this.s[this.pos++];
    const inner = this.type();
    const text = inner + (quals.includes('K') ? ' const' : '') + (quals.includes('V') ? ' volatile' : '') + (quals.includes('r') ? ' restrict' : '');
    return this.push(text);
  }

  private substitutedType(): string {
    if (this.peek(1) === 't') {
      this.pos += 2;
      const name = 'std::' + this.unqualified();
      if (this.peek() !== 'I') return this.push(name);
      this.push(name);
      return this.push(name + this.templateArgs().text);
    }
    const sub = this.substitution();
    return this.peek() === 'I' ? this.push(sub + this.templateArgs().text) : sub;
  }

  private classType(): string {
    const name = this.push(this.unqualified());
    return this.peek() === 'I' ? this.push(name + this.templateArgs().text) : name;
  }

  // ---- helpers ---------------------------------------------------------------

  private cloneSuffix(): string {
    let out = '';
    while (!this.atEnd()) {
      const m = /^\.[A-Za-z_]+(?:\.\d+)*/.exec(this.s.slice(this.pos));
      if (!m) throw new Unsupported('trailing characters');
      out += ` [clone ${m[0]}]`;
      this.pos += m[0].length;
    }
    return out;
  }

  private push(text: string): string {
    if (this.subs.length > 4096) throw new Unsupported('too many substitutions');
    this.subs.push(text);
    return text;
  }

  private number(): number {
    const start = this.pos;
    while (isDigit(this.peek())) this.pos++;
    if (this.pos === start || this.pos - start > 6) throw new Unsupported('bad number');
    return Number(this.s.slice(start, this.pos));
  }

  private guard(): void {
    if (this.atEnd()) throw new Unsupported('unexpected end');
    if (this.depth > MAX_DEPTH) throw new Unsupported('nested too deeply');
  }

  private expect(c: string): void {
    if (this.s[this.pos] !== c) throw new Unsupported(`expected '${c}'`);
    this.pos++;
  }

  private peek(ahead = 0): string {
    return this.s[this.pos + ahead] ?? '';
  }

  private peekIsOneOf(chars: string): boolean {
    const c = this.peek();
    return c !== '' && chars.includes(c);
  }

  private atEnd(): boolean {
    return this.pos >= this.s.length;
  }
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}
