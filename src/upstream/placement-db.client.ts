// Reading Placement's own database (MySQL or MariaDB) with a SELECT-only account: the connection URL
// as operators write it (`mysql://` or the SQLAlchemy form of placement.conf's [placement_database]
// connection), one consistent snapshot per read, the statements counted, and every failure in plain
// words that never show the password.
import { readFileSync } from 'node:fs';
import mysql from 'mysql2/promise';

/** Placement's schema versions (alembic heads) the mirror reads: 8.0.0's, unchanged since. */
export const KNOWN_SCHEMA_VERSIONS = ['422ece571366'];

export interface PlacementDbTarget {
  user: string;
  password: string;
  host: string | null;
  port: number;
  socketPath: string | null;
  database: string;
  ssl: { ca?: string; cert?: string; key?: string; rejectUnauthorized: boolean } | null;
  connectTimeoutMs: number;
  /** How the database is shown: no user, no password. */
  shown: string;
  /** Which database it is, whatever account reads it: what the mirror records. */
  identity: string;
}

/** The URL given is not a database URL the mirror can use; the message names what is wrong, never the password. */
export class PlacementDbConfigError extends Error {}

/** A failure to read Placement's database, worded for the operator. */
export class PlacementDbError extends Error {}

// Query options of SQLAlchemy URLs that change nothing for a read with mysql2 (pymysql's own settings, oslo.db's plugins).
const IGNORED_OPTIONS = new Set(['charset', 'plugin', 'binary_prefix', 'use_unicode', 'autocommit', 'local_infile', 'client_flag', 'read_timeout', 'write_timeout', 'init_command', 'sql_mode', 'program_name']);

/**
 * A database URL: `mysql://user:pass@host:port/placement`, or the SQLAlchemy form
 * `mysql+pymysql://user:pass@host/placement?charset=utf8`, with `?unix_socket=PATH` for a socket
 * and `ssl_ca`, `ssl_cert`, `ssl_key`, `ssl_verify_cert` / `ssl_check_hostname` for TLS.
 */
export function parsePlacementDbUrl(url: string): PlacementDbTarget {
  const m = /^(mysql|mariadb)(?:\+([a-z0-9_]+))?:\/\/(?:([^:@/?]*)(?::([^@/?]*))?@)?(\[[0-9a-fA-F:.]+\]|[^:/?@]*)(?::(\d+))?(?:\/([^?]*))?(?:\?(.*))?$/.exec(url.trim());
  if (!m) {
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
    throw new PlacementDbConfigError(
      scheme && !/^(mysql|mariadb)(\+|$)/.test(scheme)
        ? `--placement-db must be a MySQL or MariaDB URL (mysql:// or mysql+pymysql://), not ${scheme}://`
        : '--placement-db must be a URL such as mysql://USER:PASSWORD@HOST:3306/placement (or the [placement_database] connection of placement.conf)',
    );
  }
  const [, , , rawUser, rawPassword, rawHost, rawPort, rawDatabase, rawQuery] = m;
  const decode = (what: string, text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new PlacementDbConfigError(`--placement-db: the ${what} has a % that is not followed by two hex digits`);
    }
  };
  const user = rawUser ? decode('user', rawUser) : '';
  if (!user) throw new PlacementDbConfigError('--placement-db needs a user: mysql://USER:PASSWORD@HOST/placement');
  const password = rawPassword ? decode('password', rawPassword) : '';
  const database = rawDatabase ? decode('database name', rawDatabase) : '';
  if (!database || database.includes('/')) throw new PlacementDbConfigError("--placement-db needs the database's name after the host: mysql://USER:PASSWORD@HOST/placement");
  const options = new URLSearchParams(rawQuery ?? '');
  const socketPath = options.get('unix_socket');
  const host = rawHost ? rawHost.replace(/^\[|\]$/g, '') : null;
  if (!host && !socketPath) throw new PlacementDbConfigError('--placement-db needs a host (mysql://USER:PASSWORD@HOST/placement) or a socket (?unix_socket=PATH)');
  const port = rawPort ? Number(rawPort) : 3306;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new PlacementDbConfigError(`--placement-db: the port must be a whole number from 1 to 65535, not ${rawPort}`);
  const file = (key: string) => {
    const path = options.get(key);
    if (path === null) return undefined;
    try {
      return readFileSync(path, 'utf8');
    } catch {
      throw new PlacementDbConfigError(`--placement-db: ${key} names ${path}, which cannot be read`);
    }
  };
  const no = (key: string) => /^(false|0|no|off)$/i.test(options.get(key) ?? '');
  const tls = ['ssl_ca', 'ssl_cert', 'ssl_key'].some((k) => options.has(k)) || options.get('ssl') === 'true';
  const ssl = tls ? { ca: file('ssl_ca'), cert: file('ssl_cert'), key: file('ssl_key'), rejectUnauthorized: !(no('ssl_verify_cert') || no('ssl_check_hostname')) } : null;
  const unknown = [...new Set(options.keys())].filter(
    (k) => !IGNORED_OPTIONS.has(k) && !['unix_socket', 'ssl', 'ssl_ca', 'ssl_cert', 'ssl_key', 'ssl_verify_cert', 'ssl_check_hostname', 'connect_timeout'].includes(k),
  );
  if (unknown.length) throw new PlacementDbConfigError(`--placement-db: the option${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not known (known: unix_socket, ssl_ca, ssl_cert, ssl_key, ssl_verify_cert, ssl_check_hostname, connect_timeout; charset and the other options of pymysql are accepted and ignored)`);
  const connectTimeout = options.has('connect_timeout') ? Number(options.get('connect_timeout')) : 10;
  if (!(connectTimeout > 0)) throw new PlacementDbConfigError('--placement-db: connect_timeout must be a number of seconds');
  const where = socketPath ? `localhost/${database} (socket ${socketPath})` : `${host!.includes(':') ? `[${host}]` : host}:${port}/${database}`;
  return {
    user,
    password,
    host,
    port,
    socketPath,
    database,
    ssl,
    connectTimeoutMs: connectTimeout * 1000,
    shown: `mysql://${where} as ${user}`,
    identity: socketPath ? `mysql://localhost/${database}` : `mysql://${host!.includes(':') ? `[${host!.toLowerCase()}]` : host!.toLowerCase()}:${port}/${database}`,
  };
}

export type Row = Record<string, any>;

/** One read-only transaction with a consistent snapshot: every statement sees the database as it was when it began. */
export interface Snapshot {
  query(sql: string, values?: unknown[]): Promise<Row[]>;
}

/** Placement's database, read with one connection kept between reads (opened again after a failure). */
export class PlacementDbClient {
  /** Statements sent since the start. */
  statements = 0;
  private connection: mysql.Connection | null = null;

  constructor(
    readonly target: PlacementDbTarget,
    private readonly timeoutMs = 60_000,
  ) {}

  /** Runs `read` inside one read-only transaction with a consistent snapshot (REPEATABLE READ). */
  async snapshot<T>(read: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    const connection = await this.connect();
    const send = async (sql: string, values?: unknown[]) => {
      this.statements++;
      try {
        const [rows] = await connection.query({ sql, values, timeout: this.timeoutMs });
        return rows as Row[];
      } catch (error) {
        throw this.explain(error);
      }
    };
    await send('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
    try {
      const result = await read({ query: send });
      await send('COMMIT');
      return result;
    } catch (error) {
      // A connection in doubt is not reused.
      this.drop();
      throw error;
    }
  }

  close() {
    this.drop();
  }

  private drop() {
    const c = this.connection;
    this.connection = null;
    c?.destroy();
  }

  private async connect(): Promise<mysql.Connection> {
    if (this.connection) return this.connection;
    const t = this.target;
    let connection: mysql.Connection;
    try {
      connection = await mysql.createConnection({
        user: t.user,
        password: t.password,
        database: t.database,
        ...(t.socketPath ? { socketPath: t.socketPath } : { host: t.host!, port: t.port }),
        ssl: t.ssl ?? undefined,
        connectTimeout: t.connectTimeoutMs,
        charset: 'UTF8MB4_GENERAL_CI',
        // Placement's datetimes and the rest as the text protocol gives them (FLOAT ratios as MySQL prints them, as Placement reads them).
        dateStrings: true,
        supportBigNumbers: true,
      });
    } catch (error) {
      throw this.explain(error);
    }
    // A connection that dies between reads is dropped, not thrown at the process.
    connection.on('error', () => {
      if (this.connection === connection) this.connection = null;
    });
    try {
      // A consistent snapshot needs REPEATABLE READ (a server may default to READ COMMITTED, as some Galera setups do).
      this.statements++;
      await connection.query({ sql: 'SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ', timeout: this.timeoutMs });
    } catch (error) {
      connection.destroy();
      throw this.explain(error);
    }
    this.connection = connection;
    return connection;
  }

  /** The operator's words for a failure of the database or the connection to it; never its raw message or the password. */
  explain(error: unknown): Error {
    if (error instanceof PlacementDbError) return error;
    const code = String((error as { code?: unknown })?.code ?? '');
    const at = `Placement's database ${this.target.shown}`;
    const user = this.target.user;
    const words = (() => {
      switch (code) {
        case 'ECONNREFUSED':
          return `${at} is unreachable: nothing accepts connections there (check that MySQL or MariaDB runs, and the host and port of --placement-db)`;
        case 'ENOENT':
          return `${at} is unreachable: there is no socket at ${this.target.socketPath} (check that MySQL or MariaDB runs, and unix_socket)`;
        case 'ENOTFOUND':
        case 'EAI_AGAIN':
          return `${at} is unreachable: the host name does not resolve (check the host of --placement-db)`;
        case 'ETIMEDOUT':
          return `${at} is unreachable: no answer in time (check the network and any firewall)`;
        case 'ECONNRESET':
        case 'EPIPE':
        case 'PROTOCOL_CONNECTION_LOST':
          return `${at}: the connection was cut (check the server and any proxy in front of it; the next refresh connects again)`;
        case 'PROTOCOL_SEQUENCE_TIMEOUT':
          return `${at} did not answer a read within ${this.timeoutMs / 1000} s (check the server's load; --upstream-timeout sets the limit)`;
        case 'ER_ACCESS_DENIED_ERROR':
        case 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR':
          return `${at} refused the credentials of user ${user} (access denied): check the user and password of --placement-db`;
        case 'ER_DBACCESS_DENIED_ERROR':
        case 'ER_TABLEACCESS_DENIED_ERROR':
        case 'ER_COLUMNACCESS_DENIED_ERROR':
          return `${at}: user ${user} may not read Placement's tables: grant it SELECT on ${this.target.database}.* (nothing more is needed)`;
        case 'ER_BAD_DB_ERROR':
          return `${at} does not exist: check the database name of --placement-db`;
        case 'ER_NO_SUCH_TABLE':
        case 'ER_BAD_FIELD_ERROR':
          return `${at} does not have Placement's tables as Placement 8.0.0 creates them: check that --placement-db names Placement's database, and that placement-manage db sync ran`;
        case 'HANDSHAKE_SSL_ERROR':
        case 'HANDSHAKE_NO_SSL_SUPPORT':
          return `${at} is unreachable: the TLS handshake failed (check ssl_ca and the server's certificate)`;
        default:
          if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code)) return `${at} is unreachable: its TLS certificate does not verify (give its CA in ?ssl_ca=FILE)`;
          return `${at} failed a read${code ? ` (${code})` : ''}: check the server's log`;
      }
    })();
    return new PlacementDbError(words);
  }
}
