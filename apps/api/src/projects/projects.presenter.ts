import {
  type InstallableTool,
  type InstallationChanges,
  type InstallationRead,
  type LaunchContext,
  instanceStatus,
} from '../../../../libs/domain/src/index.js';
import type { ToolInstance } from '../../../../libs/persistence/src/index.js';

export function presentInstallation(installation: InstallationRead) {
  return {
    id: installation.id,
    project_id: installation.projectId,
    app_id: installation.appId,
    app: { name: installation.app.name, display_name: installation.app.displayName },
    approve_changes: installation.approveChanges,
    pending_changes: installation.pendingChanges,
    created_at: installation.createdAt.toISOString(),
  };
}

/** The tools of an installation whose definition changed since the project approved it, both versions side by side. */
export function presentInstallationChanges({ installation, changes }: InstallationChanges) {
  return {
    installation_id: installation.id,
    approve_changes: installation.approveChanges,
    data: changes.map((change) => ({
      tool_name: change.name,
      kind: change.kind,
      approved: change.approved,
      proposed: change.proposed,
    })),
  };
}

/** A tool a project can add, texts in the language asked for. */
export function presentInstallableTool(tool: InstallableTool) {
  return {
    name: tool.name,
    kind: tool.kind,
    title: tool.title,
    description: tool.description,
    response_description: tool.responseDescription,
    configurable: tool.configurable,
    allow_multiple: tool.allowMultiple,
    execution_mode: tool.executionMode,
    parameters: tool.parameters,
    change_pending: tool.changePending,
  };
}

/** An instance as the API shows it: private data only as `private_data_set`. */
export function presentToolInstance(instance: ToolInstance) {
  return {
    id: instance.id,
    project_id: instance.projectId,
    agent_id: instance.agentId,
    installation_id: instance.installationId,
    app_id: instance.appId,
    tool_name: instance.toolName,
    tool_kind: instance.toolKind,
    title: instance.title,
    configuration: instance.configuration,
    configured_parameters: instance.configuredParameters,
    private_data_set: instance.privateDataEnc !== null,
    private_data_required: instance.privateDataRequired,
    enabled: instance.enabled,
    status: instanceStatus(instance),
    configuration_problem: instance.configurationProblem,
    created_at: instance.createdAt.toISOString(),
    updated_at: instance.updatedAt.toISOString(),
  };
}

/** What a configurator page gets for its launch code: the whole context it builds its form from. */
export function presentLaunchContext({ launch, tool, instance }: LaunchContext) {
  return {
    type: 'tool_configurator' as const,
    app_id: launch.appId,
    mode: launch.mode,
    project_id: launch.projectId,
    agent_id: launch.agentId,
    installation_id: launch.installationId,
    tool_name: launch.toolName,
    theme: launch.theme,
    language: launch.language,
    tool: tool
      ? {
          name: tool.name,
          title: tool.title,
          description: tool.description,
          parameters: tool.parameters,
          allow_multiple: tool.allow_multiple,
        }
      : null,
    instance: instance ? presentToolInstance(instance) : null,
  };
}
