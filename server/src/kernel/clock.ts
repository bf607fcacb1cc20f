/** The source of "now" for the core; injected so expiry and simulator timing are tested without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to (tests). */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date | string = '2025-01-01T00:00:00.000Z') {
    this.#ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  advance(ms: number): void {
    this.#ms += ms;
  }
}
