import type { Statement } from './database-pool.js';

/** The SQL type a statement's input column is cast to. */
export type SqlType = 'text' | 'int' | 'boolean' | 'timestamp(3)' | 'jsonb';

/** One input column of a statement: its SQL name and type, and the field of an item it takes its value from. */
export interface InputColumn<T> {
  name: string;
  type: SqlType;
  of: (item: T) => unknown;
}

/**
 * `WITH input (a, b) AS (VALUES ($1::text, $2::int), ($3::text, $4::int))`: `size` items as a table the statement
 * reads by column name. Its parameters are `inputValues(columns, items)`.
 */
export function inputTable(columns: readonly InputColumn<never>[], size: number): string {
  const rows = Array.from({ length: size }, (_, row) => {
    const params = columns.map((column, i) => `$${row * columns.length + i + 1}::${column.type}`);
    return `(${params.join(', ')})`;
  });
  return `WITH input (${columns.map((column) => column.name).join(', ')}) AS (\n  VALUES ${rows.join(',\n    ')}\n)`;
}

/** The parameters of `inputTable(columns, items.length)`: each item's values, in the columns' order. */
export function inputValues<T>(columns: readonly InputColumn<T>[], items: readonly T[]): unknown[] {
  const values: unknown[] = [];
  for (const item of items) for (const column of columns) values.push(column.of(item));
  return values;
}

/** A statement for `size` items, built and named once per size (so prepared once per connection and size). */
export function perSize(name: string, text: (size: number) => string): (size: number) => Statement {
  const statements = new Map<number, Statement>();
  return (size) => {
    let statement = statements.get(size);
    if (!statement) {
      statement = { name: `${name}_${size}`, text: text(size) };
      statements.set(size, statement);
    }
    return statement;
  };
}

/** A list of SQL string literals (`'a', 'b'`) of values from one of the typed lists (never user input). */
export function sqlList(values: readonly string[]): string {
  return values.map((value) => `'${value}'`).join(', ');
}
