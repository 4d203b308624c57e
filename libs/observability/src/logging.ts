import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import type { LoggerService } from '@nestjs/common';
import type { Env } from '../../config/src/index.js';
import { censored } from './log-censor.js';

export function pinoOptions(env: Env, service: 'api' | 'worker'): LoggerOptions {
  return {
    level: env.LOG_LEVEL,
    base: { service },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    // Credentials, secrets and private data blanked out at any depth (log-censor.ts), not by pino's `redact` paths.
    formatters: { log: (fields) => censored(fields) },
  };
}

/**
 * Where log lines go: one readable line per event for a person at a terminal (outside production), led by the
 * process that wrote it (`api` or `worker`); JSON lines on stdout otherwise (for collectors, `service` says which
 * process), always in production.
 */
export function logDestination(
  env: Env,
  stdout: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
): DestinationStream | undefined {
  if (env.NODE_ENV === 'production' || !stdout.isTTY) return undefined;
  return pretty({
    colorize: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,context',
    messageKey: 'msg',
    messageFormat: '{service} {if context}[{context}] {end}{msg}',
    destination: stdout,
    sync: true,
  });
}

/**
 * Nest's logger interface over pino. Nest passes the logger's context last (`new Logger('Errors')`), and a message
 * object may come with a text before it: `warn({ request_id }, 'detail')`.
 */
export class JsonLogger implements LoggerService {
  constructor(private readonly logger: pino.Logger) {}

  log(message: unknown, ...params: unknown[]) {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]) {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]) {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]) {
    this.write('fatal', message, params);
  }

  private write(level: pino.Level, message: unknown, params: unknown[]) {
    if (!this.logger.isLevelEnabled(level)) return;
    const context = params.length > 0 ? params[params.length - 1] : undefined;
    const text = params.slice(0, -1).find((param) => typeof param === 'string');
    const fields: Record<string, unknown> = { context };
    if (message instanceof Error) this.logger[level]({ ...fields, err: message }, text ?? message.message);
    else if (typeof message === 'object' && message !== null) this.logger[level]({ ...fields, ...message }, text);
    // Nest's error(message, stack, context): the stack comes along; other levels' extra texts are not logged.
    else if (text !== undefined && level === 'error') this.logger[level]({ ...fields, stack: text }, String(message));
    else this.logger[level](fields, String(message));
  }
}

/**
 * Node's own warnings (a listener leak, a deprecation) as log lines of `logger`: Node would print
 * them to stderr as plain text, a line that breaks a JSON log stream.
 */
export function logProcessWarnings(logger: LoggerService): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    logger.warn(`${warning.name}: ${warning.message}`, 'Process');
  });
}
