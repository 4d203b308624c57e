import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import type { LoggerService } from '@nestjs/common';
import type { Env } from '../../config/src/index.js';

/**
 * Paths pino blanks out wherever they appear in a log object: credentials, secrets and private
 * data never reach a log line, even if some code passes them by mistake.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  'authorization',
  '*.authorization',
  'webhook_secret',
  '*.webhook_secret',
  'private_data',
  '*.private_data',
  'auth_header_value',
  '*.auth_header_value',
  '*.*.auth_header_value',
  'secret',
  '*.secret',
  'token',
  '*.token',
];

export function pinoOptions(env: Env, service: 'api' | 'worker'): LoggerOptions {
  return {
    level: env.LOG_LEVEL,
    base: { service },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
  };
}

/**
 * Where log lines go: one readable line per event for a person at a terminal (outside production), JSON lines on
 * stdout otherwise (for collectors), always in production.
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
    messageFormat: '{if context}[{context}] {end}{msg}',
    destination: stdout,
    sync: true,
  });
}

/** Nest's logger interface over pino, for processes without HTTP requests (the worker, scripts). */
export class JsonLogger implements LoggerService {
  constructor(private readonly logger: pino.Logger) {}

  log(message: unknown, context?: string) {
    this.write('info', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string) {
    this.write('error', message, context ?? stackOrContext);
  }
  warn(message: unknown, context?: string) {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string) {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string) {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string) {
    this.write('fatal', message, context);
  }

  private write(level: pino.Level, message: unknown, context?: string) {
    if (typeof message === 'object' && message !== null) this.logger[level]({ context, ...message });
    else this.logger[level]({ context }, String(message));
  }
}
