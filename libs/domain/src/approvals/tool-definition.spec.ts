import { describe, expect, it } from 'vitest';
import type { ApprovedToolDefinition, McpToolSnapshot } from '../../../persistence/src/index.js';
import { mcpToolAsApproved, mcpToolDefinition, sameDefinition } from './tool-definition.js';

const snapshot: McpToolSnapshot = {
  id: 'mcpt_1',
  appId: 'app_1',
  name: 'lookup',
  title: null,
  description: 'Reworded',
  inputSchema: { type: 'object', required: ['query'], properties: { query: { type: 'string' } } },
  outputSchema: null,
  annotations: null,
  execution: null,
  available: true,
  reason: null,
  position: 0,
  refreshedAt: new Date('2026-12-06T10:00:00Z'),
};

describe('a tool definition', () => {
  it('is the same whatever the order of its keys (jsonb does not keep it), and differs by any word', () => {
    const definition = mcpToolDefinition(snapshot);
    const reordered = {
      input_schema: { properties: { query: { type: 'string' } }, required: ['query'], type: 'object' },
    };
    expect(sameDefinition(definition, { ...reordered, description: 'Reworded', title: null, name: 'lookup' })).toBe(
      true,
    );
    expect(sameDefinition(definition, { ...definition, description: 'Reworded.' })).toBe(false);
    expect(sameDefinition(definition, { ...definition, title: undefined })).toBe(false);
  });

  it('as approved overlays the approved texts and schema, under an id and time of its own', () => {
    const approval: ApprovedToolDefinition = {
      installationId: 'inst_1',
      toolKind: 'mcp',
      toolName: 'lookup',
      definition: { name: 'lookup', title: 'Lookup', description: 'The lookup tool', input_schema: { type: 'object' } },
      approvedAt: new Date('2026-12-01T00:00:00Z'),
    };
    expect(mcpToolAsApproved(snapshot, approval)).toEqual({
      ...snapshot,
      id: 'mcpt_1:approved:inst_1',
      refreshedAt: approval.approvedAt,
      title: 'Lookup',
      description: 'The lookup tool',
      inputSchema: { type: 'object' },
    });
  });
});
