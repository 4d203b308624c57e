import { MAX_STORED_JSON_DEPTH, jsonTextAtAnyDepth, nestsDeeperThan } from '../../../persistence/src/index.js';

/** A content block of an MCP tool result, as far as flattening needs to know it. */
export interface McpContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  name?: string;
  uri?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

export interface McpToolResult {
  content?: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** Agent hosts take 1 to 16 content parts in a tool's result; more are cut, with a line that says so. */
export const MAX_MODEL_CONTENT_PARTS = 16;

/** What a model reads for a result with no content at all (as for an empty 2xx body). */
export const EMPTY_RESULT_TEXT = 'OK';

/**
 * The content parts a model is given: every part up to 16; past that, the first 15 and a 16th, a text line
 * saying how many parts were left out (`result` keeps them all).
 */
export function modelContent<T>(content: readonly T[]): (T | { type: 'text'; text: string })[] {
  if (content.length <= MAX_MODEL_CONTENT_PARTS) return [...content];
  const kept = MAX_MODEL_CONTENT_PARTS - 1;
  const left = content.length - kept;
  const line = `[${left} more content parts not passed: a tool's result reaches the model in at most 16 parts]`;
  return [...content.slice(0, kept), { type: 'text', text: line }];
}

/**
 * An MCP tool result as one string for a model (docs/api.md `result_text`): text blocks joined by a
 * blank line; structured content as JSON text only where there is no text block; an embedded
 * resource as its text; a resource link as its name and URI; what cannot be passed as text
 * (image, audio, binary resource) as a line that names it. Nothing is dropped silently: past 16
 * parts a line says how many were left out, and a result with nothing in it is `OK`.
 */
export function flattenMcpResult(
  result: McpToolResult,
  writeJson: (value: unknown) => string = JSON.stringify,
): string {
  const content = modelContent(Array.isArray(result.content) ? result.content : []);
  const parts = content.map(flattenBlock);
  if (!content.some((block) => block.type === 'text') && result.structuredContent !== undefined) {
    parts.push(writeJson(result.structuredContent));
  }
  return parts.length === 0 ? EMPTY_RESULT_TEXT : parts.join('\n\n');
}

/**
 * An MCP tool result as a call keeps it, in the shape a handler's answer is kept (resultOf): the result as the
 * server gave it when it nests at most MAX_STORED_JSON_DEPTH levels, else its JSON text, written without recursion
 * (it may nest deeper than any stack); `result_text` as always. Its size is bounded already: an answer is at most 1 MiB.
 */
export function mcpResultOf(result: McpToolResult): { result: unknown; resultText: string } {
  if (!nestsDeeperThan(result, MAX_STORED_JSON_DEPTH)) return { result, resultText: flattenMcpResult(result) };
  return { result: jsonTextAtAnyDepth(result), resultText: flattenMcpResult(result, jsonTextAtAnyDepth) };
}

function flattenBlock(block: McpContentBlock | { type: 'text'; text: string }): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
    case 'audio':
      return `[${block.type} (${block.mimeType ?? 'unknown type'}) not passed: only text reaches the model]`;
    case 'resource': {
      const resource = block.resource ?? {};
      if (typeof resource.text === 'string') return resource.text;
      return `[binary resource ${resource.uri ?? ''} (${resource.mimeType ?? 'unknown type'}) not passed: only text reaches the model]`;
    }
    case 'resource_link':
      return `${block.name ?? block.uri ?? 'resource'} (${block.uri ?? 'no URI'})`;
    default:
      return `[${block.type} content not passed: only text reaches the model]`;
  }
}
