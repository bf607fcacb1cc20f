/**
 * Operators managed by operators (docs/keys.md "Operators"): invitations with one-time links, enrolment of a new
 * second factor, removal (never the last operator, also under concurrency) and the two-person two-factor reset.
 * SQLite and PostgreSQL, on the harness's manual clock.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { OperatorEntry } from '../../../../../protocol/api/keys';
import { totpCode, totpStep } from '../../../core/auth/totp';
import { INVITATION_TTL_MS } from '../../../core/operators/invite-operator';
import type { Engine } from '../../../storage/database';
import { apiRequest, expectApiError, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { createHarness, type Harness } from '../../../test-support/harness';

forEachEngine('operators managed by operators', (engine: Engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => h?.close());

  const bearer = (token: string) => ({ key: null, headers: { authorization: `Bearer ${token}` } });
  const signIn = async (email: string, password: string) =>
    (await expectOk<{ session_token: string }>(await apiRequest(h, 'POST', '/v1/sessions', { key: null, body: { email, password } }))).session_token;
  const code = (secret: string) => {
    h.clock.advance(30_000);
    return totpCode(secret, totpStep(h.clock.now()));
  };
  const verify = async (token: string, secret: string) => apiRequest(h, 'POST', '/v1/sessions/verify', { ...bearer(token), body: { code: code(secret) } });
  /** The bootstrap operator, signed in with a fresh step-up. */
  const owner = async () => {
    const { email, password, totpSecret } = h.boot.createdOperator!;
    const token = await signIn(email, password);
    await expectOk(await verify(token, totpSecret));
    return token;
  };
  /** Invites, accepts and enrols a new operator; answers their id, credentials and a verified session. */
  const newOperator = async (inviter: string, email: string) => {
    const invitation = await expectOk<{ token: string }>(await apiRequest(h, 'POST', '/v1/operators/invitations', { ...bearer(inviter), body: { email } }));
    const password = `password of ${email}`;
    const entry = await expectOk<OperatorEntry>(await apiRequest(h, 'POST', '/v1/operators/invitations/accept', { key: null, body: { token: invitation.token, password } }));
    const token = await signIn(email, password);
    const { totp_secret } = await expectOk<{ totp_secret: string }>(await apiRequest(h, 'POST', '/v1/sessions/two-factor', bearer(token)));
    await expectOk(await verify(token, totp_secret));
    return { id: entry.operator_id, email, password, secret: totp_secret, token };
  };

  test('invite: a one-time link, only with a fresh step-up and never granting more than the inviter holds', async () => {
    const { email, password } = h.boot.createdOperator!;
    const stale = await signIn(email, password);
    await expectApiError(await apiRequest(h, 'POST', '/v1/operators/invitations', { ...bearer(stale), body: { email: 'new@example.com' } }), 'ERR_1019');
    await expectApiError(await apiRequest(h, 'POST', '/v1/operators/invitations', { body: { email: 'new@example.com' } }), 'ERR_1019');
    const token = await owner();
    await expectApiError(await apiRequest(h, 'POST', '/v1/operators/invitations', { ...bearer(token), body: { email: 'new@example.com', scopes: ['routing:read'] } }), 'ERR_1004', 'scopes');
    await expectApiError(await apiRequest(h, 'POST', '/v1/operators/invitations', { ...bearer(token), body: { email } }), 'ERR_4085', 'email');
    await expectApiError(await apiRequest(h, 'POST', '/v1/operators/invitations', { ...bearer(token), body: { email: 'not an e-mail' } }), 'ERR_2003', 'email');
    const invitation = await expectOk<{ token: string; accept_url: string; scopes: string[]; expires_at: string }>(
      await apiRequest(h, 'POST', '/v1/operators/invitations', { ...bearer(token), body: { email: 'New@Example.com', scopes: ['api_keys:manage'] } }),
    );
    expect(invitation.accept_url).toBe(`http://127.0.0.1:8080/v1/operators/invitations/accept#token=${invitation.token}`);
    expect(invitation.scopes).toEqual(['api_keys:manage']);
    expect(new Date(invitation.expires_at).getTime() - h.clock.now().getTime()).toBe(INVITATION_TTL_MS);
    // Stored as a hash only.
    const rows = await h.db.selectFrom('operator_invitations').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(invitation.token);

    await expectApiError(await apiRequest(h, 'POST', '/v1/operators/invitations/accept', { key: null, body: { token: invitation.token, password: 'short' } }), 'ERR_2003', 'password');
    const accepted = await expectOk<OperatorEntry>(
      await apiRequest(h, 'POST', '/v1/operators/invitations/accept', { key: null, body: { token: invitation.token, password: 'a long enough password' } }),
    );
    expect(accepted).toMatchObject({ email: 'new@example.com', scopes: ['api_keys:manage'], two_factor: 'not_enrolled' });
    await expectApiError(await apiRequest(h, 'POST', '/v1/operators/invitations/accept', { key: null, body: { token: invitation.token, password: 'a long enough password' } }), 'ERR_4084', 'token');

    const late = await expectOk<{ token: string }>(await apiRequest(h, 'POST', '/v1/operators/invitations', { ...bearer(await owner()), body: { email: 'late@example.com' } }));
    h.clock.advance(INVITATION_TTL_MS);
    await expectApiError(await apiRequest(h, 'POST', '/v1/operators/invitations/accept', { key: null, body: { token: late.token, password: 'a long enough password' } }), 'ERR_4084');
  });

  test('a new operator enrols a second factor once, then verifies with it', async () => {
    const invitation = await expectOk<{ token: string }>(await apiRequest(h, 'POST', '/v1/operators/invitations', { ...bearer(await owner()), body: { email: 'enrol@example.com' } }));
    await expectOk(await apiRequest(h, 'POST', '/v1/operators/invitations/accept', { key: null, body: { token: invitation.token, password: 'enrol password 1' } }));
    const token = await signIn('enrol@example.com', 'enrol password 1');
    await expectApiError(await apiRequest(h, 'POST', '/v1/sessions/verify', { ...bearer(token), body: { code: '123456' } }), 'ERR_1012');
    const enrolment = await expectOk<{ totp_secret: string; otpauth_uri: string }>(await apiRequest(h, 'POST', '/v1/sessions/two-factor', bearer(token)));
    expect(enrolment.totp_secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrolment.otpauth_uri).toBe(`otpauth://totp/Rail%3Aenrol%40example.com?secret=${enrolment.totp_secret}&issuer=Rail&algorithm=SHA1&digits=6&period=30`);
    await expectApiError(await apiRequest(h, 'POST', '/v1/sessions/two-factor', bearer(token)), 'ERR_4087');
    await expectOk(await verify(token, enrolment.totp_secret));
    const listed = await expectOk<{ data: OperatorEntry[] }>(await apiRequest(h, 'GET', '/v1/operators', bearer(token)));
    expect(listed.data.find((operator) => operator.email === 'enrol@example.com')?.two_factor).toBe('enrolled');
    expect(JSON.stringify(listed)).not.toMatch(/password|totp/i);
  });

  test('remove: the operator and their sessions stop at once; the last operator stays, even when two remove each other at once', async () => {
    const other = await newOperator(await owner(), 'removed@example.com');
    await expectOk(await apiRequest(h, 'DELETE', `/v1/operators/${other.id}`, bearer(await owner())));
    await expectApiError(await apiRequest(h, 'GET', '/v1/operators', bearer(other.token)), 'ERR_1008');
    await expectApiError(await apiRequest(h, 'DELETE', `/v1/operators/${other.id}`, bearer(await owner())), 'ERR_4082');

    // What a removed operator set in motion ends with them: their pending invitation no longer works.
    const leaver = await newOperator(await owner(), 'leaver@example.com');
    await h.db.updateTable('operators').set({ scopes: JSON.stringify(['operators:manage']) }).where('operator_id', '=', leaver.id).execute();
    const pending = await expectOk<{ token: string }>(await apiRequest(h, 'POST', '/v1/operators/invitations', { ...bearer(leaver.token), body: { email: 'friend-of-leaver@example.com' } }));
    await expectOk(await apiRequest(h, 'DELETE', `/v1/operators/${leaver.id}`, bearer(await owner())));
    await expectApiError(await apiRequest(h, 'POST', '/v1/operators/invitations/accept', { key: null, body: { token: pending.token, password: 'a long enough password' } }), 'ERR_4084');

    const lone = await createHarness(engine);
    try {
      const { email, password, totpSecret } = lone.boot.createdOperator!;
      const session = async (who: { email: string; password: string; secret: string }) => {
        const token = (await expectOk<{ session_token: string }>(await apiRequest(lone, 'POST', '/v1/sessions', { key: null, body: { email: who.email, password: who.password } }))).session_token;
        lone.clock.advance(30_000);
        await expectOk(await apiRequest(lone, 'POST', '/v1/sessions/verify', { ...bearer(token), body: { code: totpCode(who.secret, totpStep(lone.clock.now())) } }));
        return token;
      };
      const first = await session({ email, password, secret: totpSecret });
      const [me] = (await expectOk<{ data: OperatorEntry[] }>(await apiRequest(lone, 'GET', '/v1/operators', bearer(first)))).data;
      await expectApiError(await apiRequest(lone, 'DELETE', `/v1/operators/${me!.operator_id}`, bearer(first)), 'ERR_4083');
      const invitation = await expectOk<{ token: string }>(await apiRequest(lone, 'POST', '/v1/operators/invitations', { ...bearer(first), body: { email: 'second@example.com' } }));
      const second = await expectOk<OperatorEntry>(await apiRequest(lone, 'POST', '/v1/operators/invitations/accept', { key: null, body: { token: invitation.token, password: 'second password' } }));
      const secondToken = (await expectOk<{ session_token: string }>(await apiRequest(lone, 'POST', '/v1/sessions', { key: null, body: { email: 'second@example.com', password: 'second password' } }))).session_token;
      const { totp_secret } = await expectOk<{ totp_secret: string }>(await apiRequest(lone, 'POST', '/v1/sessions/two-factor', bearer(secondToken)));
      lone.clock.advance(30_000);
      await expectOk(await apiRequest(lone, 'POST', '/v1/sessions/verify', { ...bearer(secondToken), body: { code: totpCode(totp_secret, totpStep(lone.clock.now())) } }));
      // Each removes the other at the same moment: exactly one goes.
      const [a, b] = await Promise.all([
        apiRequest(lone, 'DELETE', `/v1/operators/${second.operator_id}`, bearer(first)),
        apiRequest(lone, 'DELETE', `/v1/operators/${me!.operator_id}`, bearer(secondToken)),
      ]);
      expect([a.status, b.status].filter((status) => status === 200)).toHaveLength(1);
      expect(await lone.store.operators.listOperators(lone.boot.account.accountId)).toHaveLength(1);
    } finally {
      await lone.close();
    }
  });

  test('two-factor reset: asked by one operator, approved by another, never by the one who asked; the target enrols again', async () => {
    const asker = await owner();
    const target = await newOperator(asker, 'lost-phone@example.com');
    const approver = await newOperator(asker, 'approver@example.com');
    const reset = await expectOk<{ reset_id: string; status: string }>(await apiRequest(h, 'POST', `/v1/operators/${target.id}/two-factor-resets`, bearer(asker)));
    expect(reset.status).toBe('pending');
    await expectApiError(await apiRequest(h, 'POST', `/v1/operators/two-factor-resets/${reset.reset_id}/approve`, bearer(await owner())), 'ERR_4086');
    // Nor the operator whose second factor it resets.
    await expectApiError(await apiRequest(h, 'POST', `/v1/operators/two-factor-resets/${reset.reset_id}/approve`, bearer(target.token)), 'ERR_4086');
    // Nothing changed yet: the target's second factor still works.
    await expectOk(await verify(target.token, target.secret));
    await expectOk(await verify(approver.token, approver.secret));
    const approved = await expectOk<{ status: string; approved_by: string }>(
      await apiRequest(h, 'POST', `/v1/operators/two-factor-resets/${reset.reset_id}/approve`, bearer(approver.token)),
    );
    expect(approved).toMatchObject({ status: 'approved', approved_by: approver.id });
    await expectApiError(await apiRequest(h, 'POST', `/v1/operators/two-factor-resets/${reset.reset_id}/approve`, bearer(approver.token)), 'ERR_4086');
    // The target's session lost its verification, the old secret is gone, and a new one is enrolled.
    await expectApiError(await apiRequest(h, 'POST', '/v1/api-keys', { ...bearer(target.token), body: { name: 'x' } }), 'ERR_1019');
    await expectApiError(await verify(target.token, target.secret), 'ERR_1012');
    const { totp_secret } = await expectOk<{ totp_secret: string }>(await apiRequest(h, 'POST', '/v1/sessions/two-factor', bearer(target.token)));
    expect(totp_secret).not.toBe(target.secret);
    await expectOk(await verify(target.token, totp_secret));
    await expectApiError(await apiRequest(h, 'POST', `/v1/operators/op_${'x'.repeat(20)}/two-factor-resets`, bearer(await owner())), 'ERR_4082');
    const subjects = (await h.db.selectFrom('security_emails').select('subject').execute()).map((row) => row.subject);
    expect(subjects).toContain('[Rail] Two-factor reset for lost-phone@example.com');
  });
});
