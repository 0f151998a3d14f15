/**
 * Hearing of every change to what a process keeps in memory (credentials, the products' default
 * resources), from any process: each such change sends a notification on its channel in its own
 * transaction (PostgreSQL delivers it at commit, and on Citus every transaction commits on the
 * coordinator, where this listens), and each process LISTENs on every channel on one connection of
 * its own, not one of the pool's, which a busy pool could not spare. What a process keeps is
 * trusted only while `listening`: from the moment the LISTENs are in place until the connection
 * reports an error or its end, when it is reconnected after a pause that doubles with each failure.
 */
import pg from 'pg';

/** The pause before reconnecting, doubling with each failure up to the longest. */
const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 5_000;

/**
 * The listening connection's application_name, with the process id: what an operator (or a test)
 * finds in pg_stat_activity.
 */
export const changeListenerName = (pid: number) => `circulation changes ${pid}`;

export interface ChangeListener {
  /** True while every change committed from now on will be heard. */
  readonly listening: boolean;
  /**
   * Calls `heard` on every notification on `channel`, and whenever listening starts or stops (a
   * change may have gone unheard meanwhile). Every channel is named before `start`.
   */
  on(channel: string, heard: () => void): void;
  /** Starts listening, once: a process that never reads what it would keep never opens the connection. */
  start(): void;
  close(): Promise<void>;
}

/** Listens on the database at `url`. */
export function listenForChanges(url: string, connectTimeoutMs: number): ChangeListener {
  const channels = new Map<string, () => void>();
  let connection: pg.Client | undefined;
  let listening = false;
  let started = false;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const heardAll = () => {
    for (const heard of channels.values()) heard();
  };

  function connect(): void {
    const client = new pg.Client({
      connectionString: url,
      application_name: changeListenerName(process.pid),
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
    });
    connection = client;
    const lost = () => {
      if (connection !== client) return;
      connection = undefined;
      listening = false;
      heardAll();
      client.end().catch(() => {});
      if (closed) return;
      retry = setTimeout(connect, Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures));
      retry.unref();
      failures += 1;
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', ({ channel }) => channels.get(channel)?.());
    client
      .connect()
      .then(() => client.query([...channels.keys()].map((channel) => `LISTEN ${channel};`).join(' ')))
      .then(() => {
        if (connection !== client) return;
        listening = true;
        failures = 0;
        heardAll();
      }, lost);
  }

  return {
    get listening() {
      return listening;
    },
    on(channel, heard) {
      // A channel named later would never be LISTENed on, though `listening` said true.
      if (started) throw new Error(`the channel ${channel} was named after listening started`);
      if (channels.has(channel)) throw new Error(`the channel ${channel} is heard already`);
      channels.set(channel, heard);
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
