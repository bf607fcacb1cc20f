/**
 * Faults the simulators play on demand, so tests can make each way a rail call goes wrong happen when they want
 * (docs/reliability.md). Test mode only: live mode has no simulator.
 */
import type { RailName } from '../../kernel/account-settings-types';

export type SimulatorFault =
  /** The call fails before the rail took the request: nothing moved. */
  | 'throw_before_accept'
  /** The rail took the request (and remembers its answer), then the call fails: money may have moved. */
  | 'throw_after_accept'
  /** The rail took the request and its answer does not come back in time. */
  | 'timeout'
  /** The rail receives the request twice (a duplicate on the wire) and processes both. */
  | 'answer_twice';

export type FaultedCall = 'authorize' | 'refund' | 'capture' | 'void' | 'cancel_post_capture' | 'increment_authorization' | 'lookup';

interface PlannedFault {
  rail: RailName | undefined;
  call: FaultedCall;
  fault: SimulatorFault;
  remaining: number;
}

/** Thrown by a simulator playing a failing call; the core sees it as any adapter's failure. */
export class SimulatedRailFault extends Error {
  constructor(readonly fault: SimulatorFault) {
    super(`simulated rail fault: ${fault}`);
  }
}

export class SimulatorFaults {
  #planned: PlannedFault[] = [];

  /** The next `times` (default 1) calls of `call` on `rail` (any rail when absent) play `fault`. */
  inject(fault: SimulatorFault, options: { call: FaultedCall; rail?: RailName; times?: number }): void {
    this.#planned.push({ rail: options.rail, call: options.call, fault, remaining: options.times ?? 1 });
  }

  /** The fault this call plays, if one is planned for it (it is used up). */
  take(rail: RailName, call: FaultedCall): SimulatorFault | undefined {
    const planned = this.#planned.find((entry) => entry.call === call && (entry.rail === undefined || entry.rail === rail));
    if (planned === undefined) return undefined;
    planned.remaining -= 1;
    if (planned.remaining <= 0) this.#planned = this.#planned.filter((entry) => entry !== planned);
    return planned.fault;
  }

  clear(): void {
    this.#planned = [];
  }
}
