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
export function flattenMcpResult(result: McpToolResult): string {
  const content = result.content ?? [];
  const parts = content.map(flattenBlock);
  if (!content.some((block) => block.type === 'text') && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  return parts.join('\n\n');
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
