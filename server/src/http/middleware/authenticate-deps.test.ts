/**
 * The middleware that authenticates a caller reads the failed_authentication limit from its deps. Its deps type
 * requires `rateLimits` (undefined only when the limits are off), so that a route wired with the core's deps alone is
 * a compile error (`npx tsc`) rather than a route without the limit. rate-limit.test.ts sends a refused key and a
 * refused session token to every route, which finds a route wired so at run time.
 */
import { describe, expect, test } from 'vitest';
import type { CoreDeps } from '../../core/shared/deps';
import { authenticate } from './authenticate';
import { callerAccountId, operatorSession } from './operator-session';
import { secretKeyOrOperatorSession } from './secret-key-or-session';

describe('the deps of the authenticating middleware', () => {
  const core = {} as CoreDeps;

  test('take the rate limits, or undefined when they are off; never the core deps alone', () => {
    // @ts-expect-error the core's deps carry no rate limits
    expect(authenticate(core, ['secret'])).toBeTypeOf('function');
    // @ts-expect-error the core's deps carry no rate limits
    expect(operatorSession(core, { keyManagement: false })).toBeTypeOf('function');
    // @ts-expect-error the core's deps carry no rate limits
    expect(secretKeyOrOperatorSession(core)).toBeTypeOf('function');
    // @ts-expect-error the core's deps carry no rate limits
    const callerDeps: Parameters<typeof callerAccountId>[1] = core;
    expect(callerDeps).toBe(core);
    const limitsOff = { ...core, rateLimits: undefined };
    expect(authenticate(limitsOff, ['secret'])).toBeTypeOf('function');
    expect(operatorSession(limitsOff, { keyManagement: false })).toBeTypeOf('function');
    expect(secretKeyOrOperatorSession(limitsOff)).toBeTypeOf('function');
  });
});
