/** A stored error text (a call's error, a refresh failure) is at most this many characters. */
export const MAX_ERROR_TEXT_CHARS = 2048;

/** `text` cut to MAX_ERROR_TEXT_CHARS, saying so: an MCP server's error body may be up to 1 MiB. */
export function capErrorText(text: string): string {
  if (text.length <= MAX_ERROR_TEXT_CHARS) return text;
  return `${text.slice(0, MAX_ERROR_TEXT_CHARS)}… (cut: ${text.length} characters)`;
}

/** Why an MCP server could not be used, in words without secrets, at most MAX_ERROR_TEXT_CHARS long. */
export function describeMcpError(error: unknown): string {
  if (!(error instanceof Error)) return capErrorText(String(error));
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const status = (error as { status?: number }).status;
  const detail = cause?.code ?? cause?.message;
  return capErrorText(`${error.message}${status ? ` (HTTP ${status})` : ''}${detail && !error.message.includes(detail) ? ` (${detail})` : ''}`);
}
