/**
 * A language-agnostic split of source text into tokens, for token-level
 * mutations: runs of word characters, runs of white space, and single
 * punctuation characters. Joining the tokens gives the text back exactly.
 * This is not a parser and never needs to be one: a mutation only needs
 * plausible cut points.
 */

type CharClass = 'word' | 'space' | 'punct';

function classOf(c: string): CharClass {
  if (c === ' ' || c === '\t' || c === '\n' || c === '\r') return 'space';
  const code = c.charCodeAt(0);
  const isDigit = code >= 48 && code <= 57;
  const isLetter = (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  if (isDigit || isLetter || c === '_' || c === '.' || code > 127) return 'word';
  return 'punct';
}

export function tokenize(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    const prev = classOf(text[i - 1]);
    const boundary = i === text.length || prev === 'punct' || classOf(text[i]) !== prev;
    if (boundary) {
      out.push(text.slice(start, i));
      start = i;
    }
  }
  return out;
}

/** True for tokens worth mutating (not white space). */
export function isSolid(token: string): boolean {
  return classOf(token[0]) !== 'space';
}

/** True for a decimal or hexadecimal number literal, with or without a suffix. */
export function isNumberToken(token: string): boolean {
  const c = token.charCodeAt(0);
  return c >= 48 && c <= 57;
}
