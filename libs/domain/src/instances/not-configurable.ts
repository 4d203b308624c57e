import { DomainError } from '../errors.js';

export function notConfigurable(toolName: string): DomainError {
  return DomainError.conflict(
    `Tool "${toolName}" is not configurable: it takes no configuration, configured_parameters or private_data (MCP tools never do).`,
  );
}
