/** Why an MCP server could not be used, in words without secrets. */
export function describeMcpError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const status = (error as { status?: number }).status;
  const detail = cause?.code ?? cause?.message;
  return `${error.message}${status ? ` (HTTP ${status})` : ''}${detail && !error.message.includes(detail) ? ` (${detail})` : ''}`;
}
