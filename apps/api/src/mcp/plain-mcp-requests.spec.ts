// The plain path is held to the SDK: every request it takes, the SDK serves as a plain JSON exchange,
// and every answer it writes is the SDK's answer to the same request and handler outcome.
import { ProtocolError, Server, createMcpHandler } from '@modelcontextprotocol/server';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  type JsonRpcId,
  PLAIN_MCP_REVISION,
  plainAnswer,
  plainCallResult,
  plainErrorAnswer,
  plainListResult,
  plainMcpRequest,
} from './plain-mcp-requests.js';

const SERVER_INFO = { name: 'toolgate', version: '9.9.9' };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': PLAIN_MCP_REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

type Outcome = { result: unknown } | { error: Error };

/** The SDK's answer (status, content type, parsed body) to `body` whose handler ends with `outcome`. */
async function sdkAnswer(headers: Record<string, string>, body: unknown, outcome?: Outcome) {
  const handler = createMcpHandler(() => {
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
    const answer = () => {
      if (outcome && 'error' in outcome) throw outcome.error;
      return (outcome?.result ?? { content: [] }) as never;
    };
    server.setRequestHandler('tools/list', answer);
    server.setRequestHandler('tools/call', answer);
    return server;
  });
  const response = await handler.fetch(
    new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) }),
  );
  const text = await response.text();
  const json = JSON.parse(text) as Record<string, unknown>;
  return { status: response.status, type: response.headers.get('content-type'), text, body: json };
}

function callRequest(id: JsonRpcId, params: Record<string, unknown> = {}) {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'app_echo', arguments: { text: 'hi' }, _meta: ENVELOPE, ...params },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PLAIN_MCP_REVISION,
    'mcp-method': 'tools/call',
    'mcp-name': 'app_echo',
  };
  return { headers, body };
}

function listRequest(id: JsonRpcId) {
  const body = { jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: ENVELOPE } };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'mcp-protocol-version': PLAIN_MCP_REVISION,
    'mcp-method': 'tools/list',
  };
  return { headers, body };
}

const asNode = (headers: Record<string, string>) => headers as IncomingHttpHeaders;

describe('plainMcpRequest', () => {
  it('takes a modern tools/call and tools/list, which the SDK serves as plain JSON', async () => {
    const cases = [
      callRequest(1),
      callRequest('a-string-id'),
      callRequest(0, { arguments: undefined }),
      callRequest(2, { _meta: { ...ENVELOPE, 'toolgate/dialog_id': 'd1', 'toolgate/lead_id': 'l1' } }),
      callRequest(5, {
        _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 'c'.repeat(5000), version: '1' } },
      }),
      { ...callRequest(3), headers: { ...callRequest(3).headers, 'content-type': 'application/json; charset=utf-8' } },
      listRequest(4),
    ];
    for (const { headers, body } of cases) {
      const plain = plainMcpRequest(asNode(headers), JSON.parse(JSON.stringify(body)));
      expect(plain, JSON.stringify(body)).toMatchObject({ method: body.method, id: body.id });
      const sdk = await sdkAnswer(headers, body, { result: { content: [] } });
      expect(sdk.status).toBe(200);
      expect(sdk.type).toBe('application/json');
      expect(sdk.body.result).toBeDefined();
    }
  });

  it('leaves to the SDK whatever is not a plain modern request', () => {
    const { headers, body } = callRequest(1);
    const without = (key: string) => Object.fromEntries(Object.entries(headers).filter(([k]) => k !== key));
    const params = body.params;
    const refused: [string, Record<string, string>, unknown][] = [
      ['no content type', without('content-type'), body],
      ['a form body', { ...headers, 'content-type': 'text/plain' }, body],
      ['no protocol version header', without('mcp-protocol-version'), body],
      ['a 2025 protocol version header', { ...headers, 'mcp-protocol-version': '2025-11-25' }, body],
      ['no method header', without('mcp-method'), body],
      ['another method header', { ...headers, 'mcp-method': 'tools/list' }, body],
      ['no name header', without('mcp-name'), body],
      ['another name header', { ...headers, 'mcp-name': 'app_other' }, body],
      ['a base64 name header', { ...headers, 'mcp-name': '=?base64?YXBwX2VjaG8=?=' }, body],
      ['a batch', headers, [body]],
      ['a notification', headers, { ...body, id: undefined }],
      ['a fractional id', headers, { ...body, id: 1.5 }],
      ['a null id', headers, { ...body, id: null }],
      ['jsonrpc 1.0', headers, { ...body, jsonrpc: '1.0' }],
      ['an extra message key', headers, { ...body, extra: 1 }],
      ['another method', { ...headers, 'mcp-method': 'prompts/list' }, { ...body, method: 'prompts/list' }],
      ['a progress token', headers, { ...body, params: { ...params, _meta: { ...ENVELOPE, progressToken: 1 } } }],
      ['a 2025 envelope', headers, { ...body, params: { ...params, _meta: { progressToken: 1 } } }],
      ['no envelope', headers, { ...body, params: { name: 'app_echo' } }],
      [
        'an envelope of another revision',
        headers,
        {
          ...body,
          params: { ...params, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } },
        },
      ],
      [
        'an envelope without clientInfo',
        headers,
        { ...body, params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': PLAIN_MCP_REVISION } } },
      ],
      [
        'a bad clientInfo',
        headers,
        { ...body, params: { ...params, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 1 } } } },
      ],
      [
        'bad clientCapabilities (after a good envelope was seen)',
        headers,
        { ...body, params: { ...params, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': 7 } } },
      ],
      ['arguments as an array', headers, { ...body, params: { ...params, arguments: [1] } }],
      ['arguments null', headers, { ...body, params: { ...params, arguments: null } }],
      ['a name that is no string', headers, { ...body, params: { ...params, name: 5 } }],
      ['a task request', headers, { ...body, params: { ...params, task: { ttl: 1000 } } }],
      [
        'a list with a cursor',
        listRequest(1).headers,
        { ...listRequest(1).body, params: { cursor: 'x', _meta: ENVELOPE } },
      ],
    ];
    expect(plainMcpRequest(asNode(headers), body)).toBeDefined();
    for (const [why, h, b] of refused) expect(plainMcpRequest(asNode(h), b), why).toBeUndefined();
  });
});

describe('the plain answers', () => {
  const plainResults: [string, unknown][] = [
    ['text', { content: [{ type: 'text', text: 'hi' }] }],
    ['no content', { content: [] }],
    ['an error', { content: [{ type: 'text', text: 'bad' }], isError: true }],
    ['structured', { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1, b: [null] } }],
    ['keys in another order', { isError: false, structuredContent: { a: 1 }, content: [{ text: 'x', type: 'text' }] }],
    [
      "an MCP server's own serverInfo",
      {
        _meta: { 'io.modelcontextprotocol/serverInfo': { version: '2', name: 'everything', title: 'E' } },
        content: [],
      },
    ],
    ['_meta without serverInfo', { content: [{ type: 'text', text: 'hi' }], _meta: { 'app/trace': { id: 1 } } }],
  ];
  const sdkRendered: [string, unknown][] = [
    ['an image', { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }],
    ['text with annotations', { content: [{ type: 'text', text: 'hi', annotations: { priority: 1 } }] }],
    ['text with an extra key', { content: [{ type: 'text', text: 'hi', extra: 1 }] }],
    ['no content key', { structuredContent: { a: 1 } }],
    ['an extra key', { content: [], weird: 2 }],
    ['a resultType', { content: [], resultType: 'complete' }],
    ['structuredContent an array', { content: [], structuredContent: [1] }],
    ['isError a string', { content: [], isError: 'yes' }],
    [
      'serverInfo with icons',
      { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'a', version: '1', icons: [] } } },
    ],
    ['serverInfo without a version', { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'a' } } }],
  ];

  it('of tools/call are the SDK answers to the same results', async () => {
    for (const [why, result] of plainResults) {
      const { headers, body } = callRequest('id-1');
      const written = plainCallResult(result, SERVER_INFO);
      expect(written, why).toBeDefined();
      const sdk = await sdkAnswer(headers, body, { result });
      expect(JSON.parse(plainAnswer('id-1', written!)), why).toEqual(sdk.body);
      expect(sdk.status).toBe(200);
    }
  });

  it('leave to the SDK the results they do not write exactly as it does', () => {
    for (const [why, result] of sdkRendered) expect(plainCallResult(result, SERVER_INFO), why).toBeUndefined();
  });

  it('write the same bytes as the SDK for what Toolgate answers most', async () => {
    const result = { content: [{ type: 'text' as const, text: '{"ok":true}' }], structuredContent: { ok: true } };
    const { headers, body } = callRequest(7);
    const sdk = await sdkAnswer(headers, body, { result });
    expect(plainAnswer(7, plainCallResult(result, SERVER_INFO)!)).toBe(sdk.text);
  });

  it('of a ProtocolError are the SDK answers, with and without data', async () => {
    for (const error of [
      new ProtocolError(-32603, 'Internal error. Quote request id r1 when reporting it.', { request_id: 'r1' }),
      new ProtocolError(-32602, 'Invalid params'),
    ]) {
      const { headers, body } = callRequest(3);
      const sdk = await sdkAnswer(headers, body, { error });
      expect(sdk.status).toBe(200);
      expect(JSON.parse(plainErrorAnswer(3, error))).toEqual(sdk.body);
    }
  });

  it('of tools/list are the SDK answer to the same list', async () => {
    const list = {
      tools: [
        {
          name: 'app_echo',
          description: 'Echoes',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, 'x-custom': true },
          annotations: { readOnlyHint: true, customHint: 'kept' },
        },
        { name: 'toolgate-call-status', inputSchema: { type: 'object' } },
      ],
    };
    const { headers, body } = listRequest('list-1');
    const sdk = await sdkAnswer(headers, body, { result: list });
    expect(JSON.parse(plainAnswer('list-1', plainListResult(list, SERVER_INFO)))).toEqual(sdk.body);
  });
});
