/**
 * What a simulated rail remembers of the requests it answered, by the reference Rail sent with each. A real rail
 * keeps this on its side; the simulators keep it in Rail's database (compose.ts wires storage/recovery), so that it
 * outlives a crash of the process that asked, as a real rail's memory would.
 */
import type { JsonObject } from '../../../protocol/api/payments';
import type { Mode } from '../../../protocol/ids';

export interface RailLedgerKey {
  accountId: string;
  mode: Mode;
  rail: string;
  /**
   * complete_authorization: the authorization that follows an external 3DS authentication, under the rail's
   * reference. capture: under the capture id (`<attempt_id>_<sequence>`); void, cancel_post_capture and
   * increment_authorization: under the reference of each request.
   */
  operation: 'authorize' | 'refund' | 'complete_authorization' | 'capture' | 'void' | 'cancel_post_capture' | 'increment_authorization';
  reference: string;
}

export interface RailLedger {
  /**
   * True when the answers are kept in Rail's own store (storage/recovery), written on its connection after what the
   * caller wrote before the call: a sync of the store that keeps an answer keeps those writes too.
   */
  readonly inRailStore?: boolean;
  /** Keeps `answer` under the key unless one is kept already; returns the answer kept (the first one). */
  rememberRailAnswer(key: RailLedgerKey, answer: JsonObject, now: Date): Promise<JsonObject>;
  findRailAnswer(key: RailLedgerKey): Promise<JsonObject | undefined>;
  /** Every answer kept under a reference that starts with `referencePrefix` (the captures of one authorization). */
  listRailAnswers(key: Omit<RailLedgerKey, 'reference'>, referencePrefix: string): Promise<JsonObject[]>;
}

/** A ledger in memory: for registries built without a database (unit tests of a simulator). */
export function createMemoryRailLedger(): RailLedger {
  const answers = new Map<string, JsonObject>();
  const keyOf = (key: RailLedgerKey) => JSON.stringify([key.accountId, key.mode, key.rail, key.operation, key.reference]);
  return {
    async rememberRailAnswer(key, answer) {
      const id = keyOf(key);
      const kept = answers.get(id);
      if (kept !== undefined) return kept;
      answers.set(id, answer);
      return answer;
    },
    async findRailAnswer(key) {
      return answers.get(keyOf(key));
    },
    async listRailAnswers(key, referencePrefix) {
      const kept: JsonObject[] = [];
      for (const [id, answer] of answers) {
        const [accountId, mode, rail, operation, reference] = JSON.parse(id) as string[];
        const sameHolder = accountId === key.accountId && mode === key.mode && rail === key.rail && operation === key.operation;
        if (sameHolder && reference!.startsWith(referencePrefix)) kept.push(answer);
      }
      return kept;
    },
  };
}
