/**
 * Whether rows read earlier from some tables of a PostgreSQL database may still be answered from memory: the API key
 * look-up of every call (storage/accounts/key-lookup-cache.ts) reads three tables that change only when keys,
 * accounts or profiles do. It was two of a payment's seven statements, each a round trip (Hyperswitch too keeps
 * merchant configuration in process memory: docs/reference.md, Performance and reliability §1.3). A generation
 * number moves whenever the tables may have changed:
 *
 * - a transaction of this process that wrote one of them has committed (or a single write outside a transaction
 *   has run): the pooled connections report their statements to watchClient, and the generation moves before the
 *   caller of that COMMIT goes on, so a key revoked through this process is looked up again by its next request;
 * - any session, of this instance or another, committed a write to one of them: statement triggers on the tables
 *   (migration 0019) send a notification on KEY_LOOKUP_CHANNEL at that commit, which a connection of its own that
 *   listens receives, so another instance drops what it kept as soon as the commit is known to PostgreSQL (about a
 *   millisecond on one host), before a client that was told of the revocation can reach it in practice.
 *
 * Nothing is kept while that connection is not known to be listening: before it listens, after it failed, and
 * whenever its heartbeat (a notification it sends itself every second, which comes back through PostgreSQL like any
 * other) has not come back for HEARTBEAT_STALE_MS. A notification that cannot reach it (a pooler in transaction
 * mode between Rail and PostgreSQL, which does not keep LISTEN; a network that drops the connection silently) so
 * turns the keeping off instead of leaving revoked keys working. Each time listening (re)starts the generation moves:
 * what was kept before may have changed meanwhile.
 */
import { randomUUID } from 'node:crypto';
import type Pg from 'pg';
import { writesAnyOf } from './accounts/key-lookup-cache';

/** The channel of the tables' triggers (migration 0019) and of the heartbeat. */
export const KEY_LOOKUP_CHANNEL = 'rail_key_lookup';
/** The listening connection's application_name (pg_stat_activity shows it). */
export const KEY_LOOKUP_LISTENER_NAME = 'rail key lookups';
/** How often the listening connection sends its heartbeat. */
const HEARTBEAT_INTERVAL_MS = 1000;
/** Without a heartbeat back for this long, nothing is kept, and the connection is opened again. */
export const HEARTBEAT_STALE_MS = 3000;
/** Waits before listening again after a failure: doubling from the first to the last. */
const RECONNECT_DELAYS_MS = { first: 100, last: 5000 } as const;

/** Statement texts already classified (a fixed set of shapes; cleared if it ever grows past this). */
const MAX_CLASSIFIED = 2000;

type StatementKind = 'begin' | 'commit' | 'rollback' | 'watched-write' | 'other';

/** The part of a pg client that is watched: query(text, values), as Kysely's PostgreSQL driver calls it. */
interface QueryingClient {
  query: (...args: never[]) => unknown;
}

export interface PostgresTableWatchOptions {
  /** A new client for the listening connection (not one of the pool's: it stays in LISTEN for the process's life). */
  connect: () => Pg.Client;
  /** Told when the keeping turns off (the listening connection failed or its heartbeat stopped), once per outage. */
  onWarning?: (message: string) => void;
}

export class PostgresTableWatch {
  #generation = 0;
  #listener: Pg.Client | undefined;
  /** When the listening connection began to listen (undefined: it does not, or no more). */
  #listeningSince: number | undefined;
  /** When the last heartbeat that came back was sent (undefined: none yet on this connection). */
  #heartbeatConfirmedAt: number | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #reconnectDelay: number = RECONNECT_DELAYS_MS.first;
  #stopped = false;
  #warned = false;
  /** This process's heartbeats carry it, then their send time; the others' (and the triggers' empty payload) are theirs. */
  readonly #heartbeatPrefix = `heartbeat:${randomUUID()}:`;
  readonly #writesWatchedTable: (sql: string) => boolean;
  readonly #kinds = new Map<string, StatementKind>();

  constructor(
    tables: readonly string[],
    private readonly options: PostgresTableWatchOptions,
  ) {
    this.#writesWatchedTable = writesAnyOf(tables);
  }

  /** Starts listening (and keeps listening until stop()). */
  start(): void {
    void this.#listen();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#heartbeatTimer);
    clearTimeout(this.#reconnectTimer);
    const listener = this.#listener;
    this.#listener = undefined;
    this.#listeningSince = undefined;
    this.#heartbeatConfirmedAt = undefined;
    await listener?.end().catch(() => undefined);
  }

  /**
   * The generation now, to compare with the one a read was kept under; undefined while nothing may be kept (not
   * listening, or the heartbeat is late).
   */
  generation(): number | undefined {
    if (this.#heartbeatConfirmedAt === undefined || this.#restartIfStale()) return undefined;
    return this.#generation;
  }

  /** Restarts the listening connection when no heartbeat sent in the last HEARTBEAT_STALE_MS has come back. */
  #restartIfStale(): boolean {
    const freshAsOf = this.#heartbeatConfirmedAt ?? this.#listeningSince;
    if (freshAsOf === undefined || Date.now() - freshAsOf <= HEARTBEAT_STALE_MS) return false;
    this.#restart(this.#listener, 'its heartbeat did not come back');
    return true;
  }

  /**
   * Has a pooled client report its statements: a COMMIT of a transaction that wrote a watched table, or such a write
   * outside a transaction, moves the generation once PostgreSQL has answered it, before the caller goes on. Reads
   * on other connections do not see the write before that commit, so nothing kept earlier was wrong until then.
   */
  watchClient(client: QueryingClient): void {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    let inTransaction = false;
    let wroteWatched = false;
    client.query = ((...args: unknown[]) => {
      const [text] = args;
      const kind = typeof text === 'string' ? this.#kindOf(text) : 'other';
      // Moves at a COMMIT whose transaction wrote a watched table, or at a watched write that commits by itself.
      let moves = false;
      if (kind === 'begin' || kind === 'rollback') {
        inTransaction = kind === 'begin';
        wroteWatched = false;
      } else if (kind === 'watched-write') {
        if (inTransaction) wroteWatched = true;
        else moves = true;
      } else if (kind === 'commit') {
        moves = wroteWatched;
        inTransaction = false;
        wroteWatched = false;
      }
      const result = query(...args);
      if (!moves) return result;
      // Whether it succeeded or not: a COMMIT that failed on the way back may still have committed.
      const moveGeneration = () => {
        this.#generation += 1;
      };
      if (result instanceof Promise) return result.finally(moveGeneration);
      moveGeneration();
      return result;
    }) as QueryingClient['query'];
  }

  #kindOf(text: string): StatementKind {
    let kind = this.#kinds.get(text);
    if (kind !== undefined) return kind;
    const head = text.trimStart().slice(0, 32).toLowerCase();
    if (/^(begin|start\s+transaction)\b/.test(head)) kind = 'begin';
    else if (/^(commit|end)\b/.test(head)) kind = 'commit';
    else if (/^(rollback|abort)\b/.test(head) && !/^rollback\s+to\b/.test(head)) kind = 'rollback';
    // A statement that names a watched table as what it writes (insert, update, delete, a data-modifying with,
    // truncate; writesAnyOf), not one that only reads it.
    else if (this.#writesWatchedTable(text)) kind = 'watched-write';
    else kind = 'other';
    if (this.#kinds.size >= MAX_CLASSIFIED) this.#kinds.clear();
    this.#kinds.set(text, kind);
    return kind;
  }

  async #listen(): Promise<void> {
    if (this.#stopped) return;
    let listener: Pg.Client;
    try {
      listener = this.options.connect();
    } catch {
      this.#reconnectTimer = setTimeout(() => void this.#listen(), RECONNECT_DELAYS_MS.last).unref();
      return;
    }
    this.#listener = listener;
    listener.on('notification', (message) => {
      if (listener !== this.#listener) return;
      const payload = message.payload ?? '';
      if (payload.startsWith(this.#heartbeatPrefix)) this.#heartbeatBack(Number(payload.slice(this.#heartbeatPrefix.length)));
      else if (!payload.startsWith('heartbeat:')) this.#generation += 1;
    });
    // pg emits 'error' on a broken connection (and would throw without a listener), then 'end'.
    listener.on('error', () => this.#restart(listener, 'its connection failed'));
    listener.on('end', () => this.#restart(listener, 'its connection ended'));
    try {
      await listener.connect();
      await listener.query(`listen ${KEY_LOOKUP_CHANNEL}`);
    } catch {
      this.#restart(listener, 'it could not listen');
      return;
    }
    if (listener !== this.#listener) return;
    this.#listeningSince = Date.now();
    this.#heartbeatTimer = setInterval(() => this.#sendHeartbeat(listener), HEARTBEAT_INTERVAL_MS).unref();
    this.#sendHeartbeat(listener);
  }

  #sendHeartbeat(listener: Pg.Client): void {
    if (listener !== this.#listener || this.#restartIfStale()) return;
    listener.query('select pg_notify($1, $2)', [KEY_LOOKUP_CHANNEL, `${this.#heartbeatPrefix}${Date.now()}`]).catch(() => this.#restart(listener, 'its heartbeat failed'));
  }

  /**
   * A heartbeat sent at `sentAt` is back: every notification committed before then has been received (PostgreSQL
   * delivers a session's notifications in commit order), so what is kept is as fresh as that send.
   */
  #heartbeatBack(sentAt: number): void {
    // Sent before this connection listened (on a connection since dropped), or older than one already back.
    if (this.#listeningSince === undefined || sentAt < this.#listeningSince || sentAt <= (this.#heartbeatConfirmedAt ?? -1)) return;
    if (this.#heartbeatConfirmedAt === undefined) {
      // Listening (again): whatever was kept before may have changed while nothing was heard.
      this.#generation += 1;
      this.#reconnectDelay = RECONNECT_DELAYS_MS.first;
      this.#warned = false;
    }
    this.#heartbeatConfirmedAt = sentAt;
  }

  /** Stops keeping anything, drops `listener` (if it is still the listening one) and listens again after a delay. */
  #restart(listener: Pg.Client | undefined, reason: string): void {
    if (listener === undefined || listener !== this.#listener || this.#stopped) return;
    this.#listener = undefined;
    this.#listeningSince = undefined;
    this.#heartbeatConfirmedAt = undefined;
    this.#generation += 1;
    clearInterval(this.#heartbeatTimer);
    void listener.end().catch(() => undefined);
    if (!this.#warned) {
      this.#warned = true;
      this.options.onWarning?.(`API key look-ups are not kept in memory for now: the connection listening on ${KEY_LOOKUP_CHANNEL} ${reason}; listening again`);
    }
    const delay = this.#reconnectDelay;
    this.#reconnectDelay = Math.min(delay * 2, RECONNECT_DELAYS_MS.last);
    this.#reconnectTimer = setTimeout(() => void this.#listen(), delay).unref();
  }
}
