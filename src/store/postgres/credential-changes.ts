/**
 * Hearing of every change to the credentials, from any process: each change to `api_keys` sends a
 * notification on CREDENTIALS_CHANNEL in its own transaction (PostgreSQL delivers it at commit, and
 * on Citus every transaction commits on the coordinator, where this listens), and each process
 * LISTENs on a connection of its own, not one of the pool's, which a busy pool could not spare.
 * What this process keeps of the credentials is trusted only while `listening`: from the moment the
 * LISTEN is in place until the connection reports an error or its end, when it is reconnected
 * after a pause that doubles with each failure.
 */
import pg from 'pg';

/** The channel every change to `api_keys` notifies. */
export const CREDENTIALS_CHANNEL = 'circulation_credentials';

/** The pause before reconnecting, doubling with each failure up to the longest. */
const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 5_000;

/**
 * The listening connection's application_name, with the process id: what an operator (or a test)
 * finds in pg_stat_activity.
 */
export const credentialListenerName = (pid: number) => `circulation credentials ${pid}`;

export interface CredentialChanges {
  /** True while every change committed from now on will be heard. */
  readonly listening: boolean;
  /** Starts listening, once: a process that never authenticates a request never opens the connection. */
  start(): void;
  close(): Promise<void>;
}

/**
 * Listens on the database at `url`; `changed` is called on every notification, and whenever
 * listening starts or stops (a change may have gone unheard meanwhile).
 */
export function listenForCredentialChanges(
  url: string,
  changed: () => void,
  connectTimeoutMs: number,
): CredentialChanges {
  let connection: pg.Client | undefined;
  let listening = false;
  let started = false;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  function connect(): void {
    const client = new pg.Client({
      connectionString: url,
      application_name: credentialListenerName(process.pid),
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
    });
    connection = client;
    const lost = () => {
      if (connection !== client) return;
      connection = undefined;
      listening = false;
      changed();
      client.end().catch(() => {});
      if (closed) return;
      retry = setTimeout(connect, Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures));
      retry.unref();
      failures += 1;
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => changed());
    client
      .connect()
      .then(() => client.query(`LISTEN ${CREDENTIALS_CHANNEL}`))
      .then(() => {
        if (connection !== client) return;
        listening = true;
        failures = 0;
        changed();
      }, lost);
  }

  return {
    get listening() {
      return listening;
    },
    start() {
      if (started || closed) return;
      started = true;
      connect();
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const client = connection;
      connection = undefined;
      listening = false;
      await client?.end().catch(() => {});
    },
  };
}
