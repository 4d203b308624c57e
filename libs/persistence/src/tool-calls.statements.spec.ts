import { describe, expect, it } from 'vitest';
import type { NewToolCall, ToolCall } from './call-states.js';
import { Prisma } from './generated/client.js';
import { TOOL_CALL_COLUMNS } from './sql-columns.js';
import {
  TOOL_CALL_STATEMENTS,
  finishedCallValues,
  newToolCallRow,
  newToolCallValues,
} from './tool-calls.statements.js';

const FIELDS = Object.keys(TOOL_CALL_COLUMNS) as (keyof ToolCall)[];
const now = new Date('2026-12-03T10:00:00.000Z');

/** A call with a value of its own in every column (dates a minute apart, JSON in the JSON columns). */
function everyFieldSet(): NewToolCall {
  const call: Record<string, unknown> = {};
  FIELDS.forEach((field, i) => {
    call[field] = field.endsWith('At') || field === 'attemptDeadline' ? new Date(now.getTime() + i * 60_000) : `v${i}`;
  });
  return { ...call, arguments: { q: 'a' }, result: [1], error: { kind: 'k' }, round: 2, attemptTimeoutS: 7 } as never;
}

/** What each column's value is, read by name: the column list of the statements is the oracle. */
function valueByName(call: NewToolCall, row: ToolCall, field: keyof ToolCall): unknown {
  if (field === 'arguments' || field === 'result' || field === 'error') {
    const value: unknown = { arguments: call.arguments, result: call.result, error: call.error }[field] ?? null;
    return value === null || value === Prisma.DbNull
      ? null
      : value === Prisma.JsonNull
        ? 'null'
        : JSON.stringify(value);
  }
  const value = row[field];
  return value instanceof Date ? value.toISOString() : value;
}

describe('the values of a call row', () => {
  it('fills in the row of every column, with the defaults Prisma would', () => {
    const call = everyFieldSet();
    expect(Object.keys(newToolCallRow(call, now)).sort()).toEqual([...FIELDS].sort());
    expect(newToolCallRow(call, now)).toEqual(call);

    const bare = { ...call, round: undefined, acceptedAt: undefined, updatedAt: undefined, leadId: undefined };
    const row = newToolCallRow({ ...bare, result: Prisma.JsonNull, error: Prisma.DbNull }, now);
    expect(row).toMatchObject({ round: 1, acceptedAt: now, updatedAt: now, leadId: null, result: null, error: null });
  });

  it('gives the values of create in the order of its columns', () => {
    const call = everyFieldSet();
    const row = newToolCallRow(call, now);
    expect(newToolCallValues(call, row)).toEqual(FIELDS.map((field) => valueByName(call, row, field)));
    const nulls = { ...call, result: Prisma.JsonNull, error: Prisma.DbNull };
    const values = newToolCallValues(nulls, newToolCallRow(nulls, now));
    expect([values[FIELDS.indexOf('result')], values[FIELDS.indexOf('error')]]).toEqual(['null', null]);
    expect(TOOL_CALL_STATEMENTS.create.text).toContain(`(${FIELDS.map((f) => TOOL_CALL_COLUMNS[f]).join(', ')})`);
  });

  it('moves a finished call by its record, held by no attempt, and adds the attempt', () => {
    const call = everyFieldSet();
    const row = newToolCallRow(call, now);
    const record = Array.from({ length: 19 }, (_, i) => `r${i}`);
    const values = finishedCallValues(call, row, record);
    // The record's values after the attempt's ten, in RECORD_INPUT's order, and the columns they set.
    const moved: Partial<Record<keyof ToolCall, string>> = {
      status: 'r10',
      nextAttemptN: 'r11',
      nextAttemptAt: 'r12',
      firstAttemptAt: 'r13',
      result: 'r14',
      resultText: 'r15',
      error: 'r16',
      finishedAt: 'r17',
      updatedAt: 'r18',
    };
    const expected = FIELDS.map((field) =>
      field === 'attemptDeadline' ? null : (moved[field] ?? valueByName(call, row, field)),
    );
    expect(values).toEqual([...expected, ...record.slice(0, 10)]);
  });
});
