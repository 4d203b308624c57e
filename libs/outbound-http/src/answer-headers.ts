import type { IncomingHttpHeaders } from 'node:http';

/** The first value of an answer's header as undici gives them (lower-case names, a list where it came twice). */
export function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
