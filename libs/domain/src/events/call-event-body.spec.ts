import { describe, expect, it } from 'vitest';
import { callEventBody } from './call-event-body.js';

describe('callEventBody', () => {
  it("writes the contract's keys in its order, whatever order the stored object has", () => {
    const stored = {
      finished_at: '2026-12-06T12:00:00.000Z',
      status: 'succeeded',
      tool: 'shop_find_customer',
      result_text: '{"found":true}',
      result: { found: true },
      error: null,
      execution_mode: 'wait',
      lead_id: null,
      dialog_id: 'd1',
      agent_id: 'a1',
      call_id: 'call_1',
    };
    expect(callEventBody(stored)).toBe(
      '{"type":"tool_call.finished","call":{"call_id":"call_1","agent_id":"a1","dialog_id":"d1","lead_id":null,' +
        '"tool":"shop_find_customer","execution_mode":"wait","status":"succeeded","result":{"found":true},' +
        '"result_text":"{\\"found\\":true}","error":null,"finished_at":"2026-12-06T12:00:00.000Z"}}',
    );
  });

  it('keeps null where a field is absent, so the keys are always the same', () => {
    const body = JSON.parse(callEventBody({ call_id: 'c', status: 'cancelled', finished_at: 'x' }));
    expect(Object.keys(body.call)).toEqual([
      'call_id',
      'agent_id',
      'dialog_id',
      'lead_id',
      'tool',
      'execution_mode',
      'status',
      'result',
      'result_text',
      'error',
      'finished_at',
    ]);
    expect(body.call.result).toBeNull();
  });
});
