import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics of one process (each process, and each app in a test, has its own registry).
 * Labels are small fixed sets (mode, status, outcome, state): never an id, a URL or a secret.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly callsAccepted = new Counter({
    name: 'toolgate_tool_calls_accepted_total',
    help: 'Tool calls accepted, by execution mode and tool kind (http, mcp).',
    labelNames: ['mode', 'kind'] as const,
    registers: [this.registry],
  });

  readonly firstAttempts = new Counter({
    name: 'toolgate_queued_call_first_attempts_total',
    help: 'Wait and background calls accepted, by who makes their first attempt: this API (a slot was free) or the queue.',
    labelNames: ['by'] as const,
    registers: [this.registry],
  });

  readonly callsFinished = new Counter({
    name: 'toolgate_tool_calls_finished_total',
    help: 'Tool calls that reached a terminal status, by execution mode and status.',
    labelNames: ['mode', 'status'] as const,
    registers: [this.registry],
  });

  readonly attempts = new Counter({
    name: 'toolgate_delivery_attempts_total',
    help: "Attempts of every kind of delivery (a call's webhook or MCP request, a tool_call.finished event), by kind and outcome.",
    labelNames: ['delivery', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly attemptDuration = new Histogram({
    name: 'toolgate_delivery_attempt_duration_seconds',
    help: 'Duration of delivery attempts, by kind and outcome.',
    labelNames: ['delivery', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  readonly attemptLateness = new Histogram({
    name: 'toolgate_delivery_attempt_lateness_seconds',
    help: "How long after its due time a queued attempt started (waiting for a free worker slot or its lane's share), by kind.",
    labelNames: ['delivery'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  readonly reconcilerRequeued = new Counter({
    name: 'toolgate_reconciler_requeued_total',
    help: 'Deliveries the reconciler queued again (overdue, or stuck after a crash), by kind.',
    labelNames: ['delivery'] as const,
    registers: [this.registry],
  });

  readonly reconcilerFailed = new Counter({
    name: 'toolgate_reconciler_failed_instant_total',
    help: 'Instant calls the reconciler ended because the API process making them stopped.',
    registers: [this.registry],
  });

  readonly deliveriesLimited = new Counter({
    name: 'toolgate_delivery_limited_total',
    help:
      "Requests to apps' handlers and MCP servers an app's delivery limits held back (a queued attempt, started " +
      'later) or refused (an instant or MCP call, answered 429), by app, reason (in_flight, per_second) and outcome.',
    labelNames: ['app_id', 'reason', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly callsOverQuota = new Counter({
    name: 'toolgate_call_quota_refused_total',
    help: "Calls refused (429) by a project's call quotas, by quota (agent_calls_per_minute, project_calls_per_minute).",
    labelNames: ['quota'] as const,
    registers: [this.registry],
  });

  readonly mcpCalls = new Counter({
    name: 'toolgate_mcp_calls_total',
    help: "Calls to apps' MCP servers, by outcome.",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'toolgate_' });
  }

  /** A gauge whose value is read when Prometheus scrapes (e.g. queue depth). */
  gaugeOnScrape(
    name: string,
    help: string,
    labelNames: string[],
    read: () => Promise<Record<string, number>>,
    label: string,
  ): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        const values = await read().catch(() => ({}));
        for (const [key, value] of Object.entries(values)) this.set({ [label]: key }, value);
      },
    });
  }

  recordAttempt(delivery: string, outcome: string, durationMs: number): void {
    this.attempts.inc({ delivery, outcome });
    this.attemptDuration.observe({ delivery, outcome }, durationMs / 1000);
  }
}
