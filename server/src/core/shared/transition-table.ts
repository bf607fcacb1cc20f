/**
 * A state machine as data: rows of (from, trigger, condition, to) and one predicate per condition. Every family's
 * machine (payments, refunds, and those to come: mandates, disputes, subscriptions, collections) is a table of
 * this shape decided by the one function below; anything not in its table is refused.
 */

export interface Transition<Status extends string, Trigger extends string, Condition extends string> {
  /** null: the object does not exist yet. */
  from: Status | null;
  trigger: Trigger;
  condition: Condition;
  to: Status;
}

export type Decision<Status extends string> =
  | { allowed: true; to: Status }
  /** No row has this (from, trigger): the operation is not allowed in this status. */
  | { allowed: false; reason: 'status' }
  /** Rows exist for (from, trigger) but no condition holds. */
  | { allowed: false; reason: 'condition' };

export interface TransitionTable<Status extends string, Trigger extends string, Condition extends string, Facts> {
  rows: readonly Transition<Status, Trigger, Condition>[];
  conditions: Record<Condition, (facts: Facts) => boolean>;
}

/** Looks the transition up in the table. The first row whose condition holds wins. */
export function decide<Status extends string, Trigger extends string, Condition extends string, Facts>(
  table: TransitionTable<Status, Trigger, Condition, Facts>,
  from: Status | null,
  trigger: Trigger,
  facts: Facts,
): Decision<Status> {
  const rows = table.rows.filter((row) => row.from === from && row.trigger === trigger);
  if (rows.length === 0) return { allowed: false, reason: 'status' };
  const row = rows.find((candidate) => table.conditions[candidate.condition](facts));
  return row ? { allowed: true, to: row.to } : { allowed: false, reason: 'condition' };
}

/** Statuses from which `trigger` can fire (the expected statuses of a conditional update). */
export function statusesFiring<Status extends string, Trigger extends string>(rows: readonly Transition<Status, Trigger, string>[], trigger: Trigger): Status[] {
  const statuses = new Set<Status>();
  for (const row of rows) if (row.trigger === trigger && row.from !== null) statuses.add(row.from);
  return [...statuses];
}
