import { isUtf8 } from 'node:buffer';
import { MAX_STORED_JSON_DEPTH, nestsDeeperThan, storableText } from '../../../../persistence/src/index.js';

/** What a handler answered, as far as the tool result needs it. */
export interface HandlerAnswer {
  body: Buffer;
  contentType?: string;
  contentEncoding?: string;
}

/**
 * A handler's answer as the tool result: JSON when it parses (and nests at most 100 levels), else
 * the text; a binary answer (compressed, or bytes that are not UTF-8 text under a content type that
 * is not text) is named in one line, as an MCP image is: only text reaches the model.
 */
export function resultOf(answer: HandlerAnswer): { result: unknown; resultText: string } {
  if (isBinary(answer)) {
    const what =
      [answer.contentType, answer.contentEncoding].filter(Boolean).join(', ').slice(0, 100) || 'no content type';
    const line = `[binary answer of ${answer.body.length} bytes (${what}) not passed: only text reaches the model]`;
    return { result: line, resultText: line };
  }
  const text = answer.body.toString('utf8');
  if (text.trim() === '') return { result: null, resultText: 'OK' };
  try {
    const result = JSON.parse(text) as unknown;
    if (nestsDeeperThan(result, MAX_STORED_JSON_DEPTH)) return { result: text, resultText: text };
    return { result, resultText: typeof result === 'string' ? result : JSON.stringify(result) };
  } catch {
    return { result: text, resultText: text };
  }
}

/** How much of what a handler said with a failed answer reaches the model. */
export const HANDLER_SAID_CHARS = 500;

/**
 * The start of what a handler said with a non-2xx answer, for the model to read why: its JSON
 * `error` or `message` string, else up to 500 characters of a text body; null for an empty or binary body.
 */
export function handlerSaid(answer: HandlerAnswer): string | null {
  if (answer.body.length === 0 || isBinary(answer)) return null;
  const text = answer.body.toString('utf8').trim();
  let said = text;
  try {
    const json = JSON.parse(text) as unknown;
    if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
      const { error, message } = json as { error?: unknown; message?: unknown };
      if (typeof error === 'string' && error.trim() !== '') said = error.trim();
      else if (typeof message === 'string' && message.trim() !== '') said = message.trim();
    }
  } catch {
    // not JSON: the text itself
  }
  // Cleaned here, not only when stored: the instant answer and the stored call read the same.
  return said === '' ? null : storableText(cut(said, HANDLER_SAID_CHARS));
}

/** At most `max` characters (whole code points), marked with "…" when cut. */
function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max).join('')}…`;
}

const TEXT_TYPES = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded|x-ndjson|yaml)\b)/i;

function isBinary({ body, contentType, contentEncoding }: HandlerAnswer): boolean {
  if (contentEncoding) return true;
  if (contentType && TEXT_TYPES.test(contentType.trim())) return false;
  return !isUtf8(body) || body.includes(0);
}
