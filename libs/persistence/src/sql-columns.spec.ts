import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  APP_COLUMNS,
  HTTP_TOOL_COLUMNS,
  INSTALLATION_COLUMNS,
  TOOL_CALL_COLUMNS,
  TOOL_INSTANCE_COLUMNS,
} from './sql-columns.js';

const SCHEMA = readFileSync(new URL('../../../prisma/schema.prisma', import.meta.url), 'utf8');
const SCALARS = new Set(['String', 'Int', 'Boolean', 'DateTime', 'Json', 'BigInt', 'Float', 'Decimal', 'Bytes']);

/** A model's scalar fields and the column each is stored in, as prisma/schema.prisma declares them. */
function columnsOf(model: string): Record<string, string> {
  const body = new RegExp(`^model ${model} \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(SCHEMA)?.[1];
  if (!body) throw new Error(`no model ${model} in prisma/schema.prisma`);
  const columns: Record<string, string> = {};
  for (const line of body.split('\n')) {
    const field = /^\s+(\w+)\s+(\w+)(\?|\[\])?(.*)$/.exec(line);
    if (!field || !SCALARS.has(field[2])) continue;
    columns[field[1]] = /@map\("([^"]+)"\)/.exec(field[4])?.[1] ?? field[1];
  }
  return columns;
}

describe('the columns the SQL names', () => {
  it.each([
    ['ToolCall', TOOL_CALL_COLUMNS],
    ['App', APP_COLUMNS],
    ['Installation', INSTALLATION_COLUMNS],
    ['ToolInstance', TOOL_INSTANCE_COLUMNS],
    ['HttpTool', HTTP_TOOL_COLUMNS],
  ])('are those of the Prisma model %s, field by field', (model, columns) => {
    expect({ ...columns }).toEqual(columnsOf(model));
  });
});
