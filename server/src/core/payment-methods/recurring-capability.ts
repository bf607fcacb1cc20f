import type { Mode } from '../../../../protocol/ids';
import type { AccountSettings } from '../../kernel/account-settings-types';

/**
 * Whether the account's rail keeps instruments for later charges in this mode (the `recurring` capability,
 * api-conventions §8). Off on every rail of the default account (spec "not live today" 3); RAIL_ACCOUNT_CONFIG
 * switches it on for a test account, and the simulator then charges saved methods and mandates.
 */
export function recurringOn(settings: AccountSettings, mode: Mode, rail: string | null): boolean {
  if (rail === null) return false;
  const settingsOfRail = settings.rails.find((candidate) => candidate.rail === rail);
  return settingsOfRail !== undefined && settingsOfRail.modes.includes(mode) && settingsOfRail.capabilities[mode].recurring;
}

/** Whether any rail of the account keeps instruments in this mode. */
export function recurringOnAnyRail(settings: AccountSettings, mode: Mode): boolean {
  return settings.rails.some((rail) => recurringOn(settings, mode, rail.rail));
}
