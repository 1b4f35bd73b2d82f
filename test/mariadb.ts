// A private MariaDB for the tests (Debian's mariadb-server): mariadb-install-db into a temporary
// folder, then mariadbd on a unix socket there (no network port), stopped after the tests. The
// account that runs the tests is the server's administrator through the socket.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const SEARCH = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/usr/bin'];
const find = (name: string) => SEARCH.map((dir) => join(dir, name)).find((path) => existsSync(path)) ?? null;

/** Why the tests that need MariaDB cannot run here, or null when they can. */
export function mariadbMissing(): string | null {
  const missing = ['mariadb-install-db', 'mariadbd', 'mariadb'].filter((name) => !find(name));
  return missing.length ? `MariaDB is not installed (${missing.join(', ')} not found; apt-get install mariadb-server)` : null;
}

export interface TestMariaDb {
  socket: string;
  /** Runs SQL as the administrator; its output (tab-separated, no column names). */
  sql(statements: string): string;
  /** A URL for `user` through the socket, in the form placement.conf uses. */
  url(user: string, password: string): string;
  stop(): Promise<void>;
}

/** Starts a MariaDB in a temporary folder; it answers within `timeoutMs` or the start fails. */
export async function startMariaDb(timeoutMs = 60_000): Promise<TestMariaDb> {
  const dir = mkdtempSync(join(tmpdir(), 'pgql-mariadb-'));
  const data = join(dir, 'data');
  const socket = join(dir, 'mysqld.sock');
  const osUser = userInfo().username;
  const install = spawnSync(find('mariadb-install-db')!, ['--no-defaults', `--datadir=${data}`, `--user=${osUser}`, '--auth-root-authentication-method=socket', '--skip-test-db'], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  if (install.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed: ${install.stderr || install.error}`);
  }
  const server: ChildProcess = spawn(
    find('mariadbd')!,
    [
      '--no-defaults', `--datadir=${data}`, `--socket=${socket}`, '--skip-networking', '--skip-log-bin', `--user=${osUser}`,
      `--pid-file=${join(dir, 'mariadbd.pid')}`, '--innodb-buffer-pool-size=64M', '--innodb-flush-log-at-trx-commit=2',
      '--character-set-server=utf8mb4', '--collation-server=utf8mb4_general_ci', `--log-error=${join(dir, 'error.log')}`,
    ],
    { stdio: 'ignore' },
  );
  const sql = (statements: string) => {
    const run = spawnSync(find('mariadb')!, ['--no-defaults', `--socket=${socket}`, '-u', osUser, '--batch', '--skip-column-names'], { input: statements, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    if (run.status !== 0) throw new Error(`mariadb: ${run.stderr || run.error}`);
    return run.stdout;
  };
  const stop = async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exitCode !== null) {
      await stop();
      throw new Error('mariadbd exited at start');
    }
    try {
      sql('SELECT 1');
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`mariadbd did not answer within ${timeoutMs / 1000} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    socket,
    sql,
    url: (user, password) => `mysql+pymysql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@localhost/placement?unix_socket=${socket}&charset=utf8`,
    stop,
  };
}
