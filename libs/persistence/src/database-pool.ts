import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { parseDatabaseUrl } from './database-url.js';
import { isoTimestamp } from './iso-timestamp.js';

/**
 * Bounds on every wait for Postgres: a connection, a statement on the server, and an answer on the
 * wire (a server that went silent). A request then fails within seconds and is answered 503.
 */
export const DATABASE_TIMEOUTS = { connectMs: 2000, statementMs: 5000, answerMs: 6000 } as const;

/** A named prepared statement: parsed and planned once per connection, then run by name. */
export interface Statement {
  name: string;
  text: string;
}

const TIMESTAMP_OID = 1114;
const INT8_OID = 20;
/** Columns are `timestamp(3)` holding UTC (as Prisma writes them); counts are int8. */
const TYPES = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === TIMESTAMP_OID) return (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
    if (oid === INT8_OID) return (text: string) => Number(text);
    return pg.types.getTypeParser(oid, format as 'text') as (text: string) => unknown;
  }) as typeof pg.types.getTypeParser,
};

/**
 * The one `pg` pool of a process: Prisma's adapter runs on it, and so does the hot path's SQL
 * (named prepared statements, about a tenth of a model query's client CPU).
 *
 * Through a pooler in transaction mode (`?pgbouncer=true`) a connection is a different Postgres session at every
 * transaction: a statement prepared on one is unknown on the next, and startup parameters are refused. Then the
 * statements go unnamed (parsed at every run) and the session's settings come from the role.
 */
@Injectable()
export class DatabasePool implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  readonly pool: pg.Pool;
  readonly schema: string;
  /** Behind a transaction-mode pooler: no named statements, no startup parameters. */
  readonly pooled: boolean;
  private ended = false;

  constructor(databaseUrl: string) {
    const { connectionString, schema, pooled } = parseDatabaseUrl(databaseUrl);
    this.schema = schema;
    this.pooled = pooled;
    this.pool = new pg.Pool({
      connectionString,
      max: 20,
      // A connection idle for a minute is closed (pg's default: 10 s). With 10 s, the connections a burst opened
      // closed between bursts and reopened at the next: 23 new Postgres sessions in 15 s of bench row 3, each
      // 20-27 ms of Postgres CPU here (a fork, cold caches, statements prepared again); with a minute, none.
      idleTimeoutMillis: 60_000,
      connectionTimeoutMillis: DATABASE_TIMEOUTS.connectMs,
      query_timeout: DATABASE_TIMEOUTS.answerMs,
      ...(pooled
        ? {}
        : {
            // search_path too, so that raw SQL finds the same tables as the generated queries.
            options: `-c search_path=${schema}`,
            statement_timeout: DATABASE_TIMEOUTS.statementMs,
          }),
    });
    // An idle connection that breaks is dropped by the pool; without a listener it would crash the process.
    this.pool.on('error', (error) => this.logger.warn(`idle Postgres connection lost: ${error.message}`));
  }

  /** Rows of a named statement; timestamps as UTC Dates, jsonb parsed, int8 as numbers. */
  async rows<R>(statement: Statement, values: unknown[]): Promise<R[]> {
    return (await this.run(statement, values)).rows as R[];
  }

  /** How many rows a named statement (an INSERT, UPDATE or DELETE) touched. */
  async count(statement: Statement, values: unknown[]): Promise<number> {
    return (await this.run(statement, values)).rowCount ?? 0;
  }

  private run(statement: Statement, values: unknown[]): Promise<pg.QueryResult> {
    const name = this.pooled ? undefined : statement.name;
    return this.pool.query({ name, text: statement.text, values, types: TYPES });
  }

  /**
   * Refuses to start where every statement would fail: a pooler that refuses the startup parameters (the URL lacks
   * `?pgbouncer=true`), or, through a pooler, a role whose search_path does not find the schema. A Postgres that
   * does not answer yet is only logged: readiness reports it, and the pool connects when it can.
   */
  async onModuleInit(): Promise<void> {
    let session: { schema: string | null; timeout: string };
    try {
      const { rows } = await this.pool.query<{ schema: string | null; timeout: string }>(
        "SELECT current_schema() AS schema, current_setting('statement_timeout') AS timeout",
      );
      session = rows[0];
    } catch (error) {
      const message = (error as Error).message;
      if (/unsupported startup parameter/i.test(message)) {
        throw new Error(
          `DATABASE_URL: the server refused a startup parameter (${message}). It is a pooler in transaction mode ` +
            '(PgBouncer): add ?pgbouncer=true to DATABASE_URL, and set the schema and timeout on the role ' +
            '(docs/operations.md).',
          { cause: error },
        );
      }
      this.logger.warn(`Postgres does not answer yet: ${message}`);
      return;
    }
    if (!this.pooled) return;
    if (session.schema !== this.schema) {
      throw new Error(
        `DATABASE_URL: through a pooler (pgbouncer=true) the schema comes from the role's search_path, which finds ` +
          `${session.schema === null ? 'no schema' : `"${session.schema}"`}, not "${this.schema}": ` +
          `ALTER ROLE <user> SET search_path TO "${this.schema}" (or keep the tables in public).`,
      );
    }
    if (session.timeout === '0') {
      this.logger.warn(
        'no statement_timeout for this role: through a pooler it cannot be set per connection. ' +
          "ALTER ROLE <user> SET statement_timeout = '5s' bounds a stuck statement.",
      );
    }
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.pool.end();
  }

  /** After every module's onModuleDestroy: Prisma lets go of the pool first. */
  async onApplicationShutdown(): Promise<void> {
    await this.end();
  }
}

/** A timestamp parameter: columns hold UTC without a zone, and `pg` would send a Date in local time. */
export function utc(date: Date | string | null | undefined): string | null {
  if (date === null || date === undefined) return null;
  return typeof date === 'string' ? date : isoTimestamp(date);
}

/** Postgres refused the values (a data exception or a limit such as nesting), or they could not be serialized. */
export function isDataError(error: unknown): boolean {
  return error instanceof RangeError || error instanceof TypeError || isRefusedValue(error);
}

/** Postgres refused a statement's values (SQLSTATE 22: data exception, 54: a limit such as nesting). */
export function isRefusedValue(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('54'));
}
