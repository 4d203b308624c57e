/**
 * Where a delivery waits its turn at a worker's gate, and which connection pool it goes out through: an app's
 * webhooks share the app's lane (so one app's hanging handler slows only that app), a project's events share the
 * project's event lane.
 */
export type Lane =
  { readonly kind: 'app'; readonly appId: string } | { readonly kind: 'project-events'; readonly projectId: string };

export function appLane(appId: string): Lane {
  return { kind: 'app', appId };
}

export function projectEventsLane(projectId: string): Lane {
  return { kind: 'project-events', projectId };
}

/**
 * The lane as a key of this process's maps (the gate's lanes, the pools of outgoing connections). An app's key is its
 * id, so that its webhooks and its MCP requests share one pool; ids never contain a colon, so keys never collide.
 */
export function laneKey(lane: Lane): string {
  return lane.kind === 'app' ? lane.appId : `project-events:${lane.projectId}`;
}

/** A lane read back from a job's payload (Redis holds JSON): null when it is not one. */
export function laneOf(value: unknown): Lane | null {
  if (typeof value !== 'object' || value === null) return null;
  const lane = value as Record<string, unknown>;
  if (lane.kind === 'app' && typeof lane.appId === 'string') return appLane(lane.appId);
  if (lane.kind === 'project-events' && typeof lane.projectId === 'string') return projectEventsLane(lane.projectId);
  return null;
}
