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

/**
 * An MCP tool result as one string for a model (API.md `result_text`): text blocks joined by a
 * blank line; structured content as JSON text only where there is no text block; an embedded
 * resource as its text; a resource link as its name and URI; what cannot be passed as text
 * (image, audio, binary resource) as a line that names it. Nothing is dropped silently.
 */
export function flattenMcpResult(
  result: McpToolResult,
  writeJson: (value: unknown) => string = JSON.stringify,
): string {
  const content = result.content ?? [];
  const parts = content.map(flattenBlock);
  if (!content.some((block) => block.type === 'text') && result.structuredContent !== undefined) {
    parts.push(writeJson(result.structuredContent));
  }
  return parts.join('\n\n');
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

function flattenBlock(block: McpContentBlock): string {
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
