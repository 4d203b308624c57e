/** A stored error text (a call's error, a refresh failure) is at most this many characters. */
export const MAX_ERROR_TEXT_CHARS = 2048;

/** `text` cut to MAX_ERROR_TEXT_CHARS, saying so: an MCP server's error body may be up to 1 MiB. */
export function capErrorText(text: string): string {
  if (text.length <= MAX_ERROR_TEXT_CHARS) return text;
  return `${text.slice(0, MAX_ERROR_TEXT_CHARS)}… (cut: ${text.length} characters)`;
}

/** The first error of that class in `error`'s cause chain (the SDK and fetch wrap what failed). */
export function findCause<T extends Error>(error: unknown, type: abstract new (...args: never[]) => T): T | null {
  for (
    let current = error, depth = 0;
    current && depth < 8;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    if (current instanceof type) return current;
  }
  return null;
}

/** Why an MCP server could not be used, in words without secrets, at most MAX_ERROR_TEXT_CHARS long. */
export function describeMcpError(error: unknown): string {
  if (!(error instanceof Error)) return capErrorText(String(error));
  const cause = (error as { cause?: { code?: string; message?: string; cause?: { code?: string; message?: string } } })
    .cause;
  const status = (error as { status?: number }).status;
  // "fetch failed" says nothing: the reason is one level further down
  const detail = cause?.cause?.code && cause.cause.message ? cause.cause.message : (cause?.code ?? cause?.message);
  return capErrorText(
    `${error.message}${status ? ` (HTTP ${status})` : ''}${detail && !error.message.includes(detail) ? ` (${detail})` : ''}`,
  );
}
