import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../../../../libs/persistence/src/index.js';
import { finishedCallResult } from './agent-mcp-results.js';

const call = (fields: Partial<ToolCall>) =>
  ({
    id: 'call_1',
    toolKind: 'mcp',
    status: 'succeeded',
    result: null,
    resultText: null,
    error: null,
    ...fields,
  }) as ToolCall;

describe('finishedCallResult', () => {
  it("passes an MCP tool's result through, naming the call beside the server's own _meta", () => {
    const result = { content: [{ type: 'text', text: 'hi' }], _meta: { 'app/x': 1 } };
    expect(finishedCallResult(call({ result }))).toEqual({
      content: [{ type: 'text', text: 'hi' }],
      _meta: { 'app/x': 1, 'toolgate/call_id': 'call_1' },
    });
    const failed = { content: [{ type: 'text', text: 'no' }], isError: true };
    expect(finishedCallResult(call({ status: 'failed', result: failed }))).toMatchObject({ ...failed });
  });

  it('gives an MCP result in 1 to 16 content parts', () => {
    const many = Array.from({ length: 17 }, (_, i) => ({ type: 'image', data: 'AA==', mimeType: `image/${i}` }));
    const cut = finishedCallResult(call({ result: { content: many } })).content;
    expect(cut).toHaveLength(16);
    expect(cut[15]).toEqual({ type: 'text', text: expect.stringMatching(/^\[2 more content parts not passed/) });
    expect(finishedCallResult(call({ result: { content: [] }, resultText: 'OK' })).content).toEqual([
      { type: 'text', text: 'OK' },
    ]);
    const error = { kind: 'tool_error', message: 'the tool reported an error' };
    const failed = finishedCallResult(call({ status: 'failed', result: { content: [], isError: true }, error }));
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the tool reported an error' }] });
  });

  it('gives the text of an MCP result kept as text (nested too deep to keep as JSON)', () => {
    expect(finishedCallResult(call({ result: '{"content":[]…', resultText: '{"a":…}' }))).toEqual({
      content: [{ type: 'text', text: '{"a":…}' }],
      _meta: { 'toolgate/call_id': 'call_1' },
    });
  });

  it("names the call in an HTTP tool's result and in a failure", () => {
    expect(finishedCallResult(call({ toolKind: 'http', result: { ok: true } }))).toMatchObject({
      _meta: { 'toolgate/call_id': 'call_1' },
    });
    const failed = call({ toolKind: 'http', status: 'failed', error: { kind: 'timeout', message: 'slow' } });
    expect(finishedCallResult(failed)).toMatchObject({ isError: true, _meta: { 'toolgate/call_id': 'call_1' } });
  });
});
