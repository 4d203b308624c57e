import { describe, expect, it } from 'vitest';
import { flattenMcpResult } from './result-text.js';

describe('flattenMcpResult', () => {
  it('joins text blocks with a blank line', () => {
    expect(
      flattenMcpResult({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toBe('one\n\ntwo');
  });

  it('gives structured content as JSON text only when there is no text block', () => {
    expect(flattenMcpResult({ content: [], structuredContent: { sum: 3 } })).toBe('{"sum":3}');
    expect(flattenMcpResult({ content: [{ type: 'text', text: 'The sum is 3' }], structuredContent: { sum: 3 } })).toBe(
      'The sum is 3',
    );
  });

  it('gives an embedded resource as its text and a resource link as its name and URI', () => {
    expect(
      flattenMcpResult({
        content: [
          { type: 'resource', resource: { uri: 'file:///a.json', mimeType: 'application/json', text: '{"a":1}' } },
          { type: 'resource_link', name: 'notes', uri: 'file:///notes.md' },
        ],
      }),
    ).toBe('{"a":1}\n\nnotes (file:///notes.md)');
  });

  it('names what cannot be passed instead of dropping it', () => {
    const text = flattenMcpResult({
      content: [
        { type: 'text', text: 'Here is the image:' },
        { type: 'image', mimeType: 'image/png' },
        { type: 'audio', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: 'AAAA' } },
      ],
    });
    expect(text.split('\n\n')).toEqual([
      'Here is the image:',
      '[image (image/png) not passed: only text reaches the model]',
      '[audio (audio/wav) not passed: only text reaches the model]',
      '[binary resource file:///b.bin (application/octet-stream) not passed: only text reaches the model]',
    ]);
  });

  it('is OK for a result with nothing in it', () => {
    expect(flattenMcpResult({})).toBe('OK');
    expect(flattenMcpResult({ content: [] })).toBe('OK');
  });

  it('cuts more than 16 parts to 15 and a 16th line saying how many were left out', () => {
    const content = Array.from({ length: 20 }, (_, i) => ({ type: 'text', text: `p${i}` }));
    const parts = flattenMcpResult({ content }).split('\n\n');
    expect(parts).toHaveLength(16);
    expect(parts[14]).toBe('p14');
    expect(parts[15]).toMatch(/^\[5 more content parts not passed/);
    expect(flattenMcpResult({ content: content.slice(0, 16) }).split('\n\n')).toHaveLength(16);
  });
});
