/** Why a handler or server URL is refused, or null: http(s) only, no credentials inside. */
export function httpUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL such as https://example.com/hook';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password)
    return 'must not carry credentials: authenticate with the webhook signature (or, for MCP, the auth header)';
  if (url.hash) return 'must not have a #fragment';
  return null;
}
