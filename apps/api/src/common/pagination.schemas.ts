import { z } from 'zod';

const CURSOR_ID = /^[a-z]+_[0-9a-f]{32}$/;

export function encodeCursor(id: string | null): string | null {
  return id === null ? null : Buffer.from(id).toString('base64url');
}

/** `?limit=` 1–100 (default 20) and the opaque `?cursor=` of the previous page's next_cursor. */
export const ListQuerySchema = z.object({
  limit: z.coerce
    .number({ message: 'must be a whole number from 1 to 100' })
    .int('must be a whole number from 1 to 100')
    .min(1, 'must be from 1 to 100')
    .max(100, 'must be from 1 to 100')
    .default(20),
  cursor: z
    .string()
    .transform((cursor, ctx) => {
      const id = Buffer.from(cursor, 'base64url').toString();
      if (!CURSOR_ID.test(id)) {
        ctx.addIssue({ code: 'custom', message: 'not a cursor of this list: pass next_cursor from the previous page' });
        return z.NEVER;
      }
      return id;
    })
    .optional(),
});

export function pageRequest(query: z.output<typeof ListQuerySchema>) {
  return { limit: query.limit, after: query.cursor };
}

/** `?confirm=true` of destructive calls. */
export const ConfirmQuerySchema = z.object({
  confirm: z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .optional()
    .transform((value) => value === 'true'),
});
