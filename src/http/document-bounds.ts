import { Lexer, parse, Source, TokenKind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { refusalError } from './limits.js';

// graphql-js parses by recursion, a few frames a level: some 3,000 nested braces overflow Node's stack,
// which would answer a caller's document with a 500. An operation admitted nests at most MAX_DEPTH
// fields, its arguments a few levels more: 100 brackets of any kind is far past any of them.
const MAX_NESTING = 100;

const opening = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const closing = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/** Lexes `source` as far as its bounds allow: the first bound it passes, or undefined (a document that does not lex is left to the parser to name). */
function boundPassed(source: string, maxTokens: number) {
  const lexer = new Lexer(new Source(source));
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (++tokens > maxTokens)
        return {
          message: `Document holds more than ${maxTokens} tokens; the limit is ${maxTokens}.`,
          measure: 'tokens' as const,
          limit: maxTokens,
        };
      if (opening.has(token.kind) && ++nesting > MAX_NESTING)
        return {
          message: `Document nests brackets more than ${MAX_NESTING} deep, at line ${token.line}; the limit is ${MAX_NESTING}.`,
          measure: 'nesting' as const,
          limit: MAX_NESTING,
        };
      if (closing.has(token.kind)) nesting--;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * Bounds what parsing a document costs, before its sender is known: parsing and validating run
 * before any credential or operation limit is checked, in time proportional to the document's
 * tokens (50,000 aliases took 1.6 s of CPU to be told 401). A document past MAX_TOKENS tokens, or
 * nested past what the parser's recursion takes, is refused OPERATION_TOO_COMPLEX from its lexer's
 * first pass, on every door that parses (HTTP, Server-Sent Events, WebSocket).
 */
export function useDocumentBounds(maxTokens: number): Plugin {
  const boundedParse: typeof parse = (source, options) => {
    const passed = boundPassed(typeof source === 'string' ? source : source.body, maxTokens);
    if (passed) throw refusalError(passed);
    return parse(source, options);
  };
  return { onParse: ({ setParseFn }) => setParseFn(boundedParse) };
}
