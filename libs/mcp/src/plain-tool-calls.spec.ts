import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseParser } from './plain-tool-calls.js';

/**
 * The events the SDK reads from `chunks`: its TextDecoderStream, then its parser (eventsource-parser, under its
 * EventSourceParserStream).
 */
function sdkEvents(chunks: Buffer[]) {
  const events: { id?: string; event?: string; data: string }[] = [];
  const parser = createParser({ onEvent: ({ id, event, data }) => events.push({ id, event, data }) });
  const decoder = new TextDecoder();
  for (const chunk of chunks) parser.feed(decoder.decode(chunk, { stream: true }));
  return events;
}

function plainEvents(chunks: Buffer[]) {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

/** Cuts the UTF-8 bytes of `text` at the given offsets (inside a character too). */
function cut(text: string, offsets: number[]): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const at = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const to of at) {
    chunks.push(bytes.subarray(from, to));
    from = to;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

describe('SseParser', () => {
  it("reads a server's answer stream: a priming event, then the response", () => {
    const stream =
      'id: 1f0c\ndata: \n\nevent: message\nid: 7d9c\ndata: {"jsonrpc":"2.0","id":3,"result":{"content":[]}}\n\n';
    expect(plainEvents([Buffer.from(stream)])).toEqual([
      { id: '1f0c', event: undefined, data: '' },
      { id: '7d9c', event: 'message', data: '{"jsonrpc":"2.0","id":3,"result":{"content":[]}}' },
    ]);
  });

  it('reads events as the SDK reads them, whatever the line endings, fields, characters and chunk boundaries', () => {
    const line = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'b', '{', '"', ' ', ':', 'é', '€', '😀') }).map((v) => `data: ${v}`),
      fc.string({ unit: fc.constantFrom('a', '1', ' ') }).map((v) => `data:${v}`),
      fc.constantFrom('data', 'event: message', 'event: ping', 'id: 42', 'id', ': comment', 'retry: 100', 'other: x'),
      fc.constant(''),
    );
    const stream = fc
      .tuple(fc.array(line, { maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\r'))
      .map(([lines, eol]) => lines.map((l) => l + eol).join('') + eol);
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (text, offsets) => {
        const chunks = cut(text, offsets);
        expect(plainEvents(chunks)).toEqual(sdkEvents(chunks));
      }),
      { numRuns: 500 },
    );
  });
});
