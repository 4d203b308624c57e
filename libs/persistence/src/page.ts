export interface PageRequest {
  limit: number;
  /** The id of the last item of the previous page. */
  after?: string;
}

export interface Page<T> {
  items: T[];
  /** The id to continue after, or null on the last page. */
  nextAfter: string | null;
}

/** Turns `limit + 1` fetched rows into a page: the extra row only tells that more exist. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const items = rows.slice(0, limit);
  return { items, nextAfter: rows.length > limit ? items[items.length - 1].id : null };
}
