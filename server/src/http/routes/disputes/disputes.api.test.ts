/**
 * The disputes and files API suite (issue 13), through app.request() (no port), on SQLite and PostgreSQL
 * (forEachEngine). The default account shows the spec's today-behaviour (empty lists, zero counts, refusals); an
 * account whose UPI rail has the disputes capability in test mode drives the whole lifecycle through the simulator.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DISPUTE_STATUSES, FILE_LIMITS, type DisputeResponse, type EvidenceBlock } from '../../../../../protocol/api/disputes';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import { createApp } from '../../../app';
import { compose } from '../../../compose';
import { DEFAULT_ACCOUNT_SETTINGS } from '../../../core/accounts/account-settings';
import { ORPHAN_BLOB_AGE_MS, sweepOrphanBlobs } from '../../../core/disputes/sweep-orphan-blobs';
import type { FileBlobStore } from '../../../storage/files/store';
import { SqlFileBlobStore } from '../../../storage/files/sql-store';
import { cryptoIds } from '../../../kernel/ids';
import { createLogger } from '../../../logger';
import type { AccountSettings } from '../../../kernel/account-settings-types';
import { apiRequest, expectApiError, expectOk, insertLiveSecretKey } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { createHarness, createTestDatabase, memorySecretsFile, withOwnConnection, type Harness } from '../../../test-support/harness';
import { ManualClock } from '../../../kernel/clock';
import { defaultWebhookDeliveryConfig } from '../../../webhooks/delivery';
import { WebhookDispatcher } from '../../../webhooks/dispatcher';
import type { WebhookRequest } from '../../../webhooks/sender';
import { verifyStandardWebhook } from '../../../webhooks/signing';
import { multipartBody, sampleFile, type MultipartPart } from '../../../test-support/multipart';

type Json = Record<string, unknown>;

/** The default account with the disputes capability switched on for UPI in test mode (RAIL_ACCOUNT_CONFIG). */
const DISPUTES_SETTINGS: AccountSettings = {
  ...DEFAULT_ACCOUNT_SETTINGS,
  rails: DEFAULT_ACCOUNT_SETTINGS.rails.map((rail) =>
    rail.rail === 'upi' ? { ...rail, capabilities: { ...rail.capabilities, test: { ...rail.capabilities.test, disputes: true } } } : rail,
  ),
};

const PAID = { confirm: true, payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } };

function harnessHelpers(get: () => Harness) {
  const request = (method: string, path: string, options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}) =>
    apiRequest(get(), method, path, options);
  const upload = (method: 'POST' | 'PUT', path: string, parts: readonly MultipartPart[], options: { cut?: number; headers?: Record<string, string> } = {}) => {
    const { body, contentType } = multipartBody(parts);
    const sent = options.cut === undefined ? body : body.subarray(0, body.length - options.cut);
    return get().app.request(path, { method, headers: { 'api-key': get().secretKey, 'content-type': contentType, ...options.headers }, body: new Uint8Array(sent) });
  };
  const paidPayment = async (amount = 10_000): Promise<PaymentResponse> =>
    expectOk<PaymentResponse>(await request('POST', '/payments', { body: { amount, currency: 'INR', ...PAID } }));
  /** Files written anywhere: rows of `files`, and bytes on disk (SQLite) or in file_blobs (PostgreSQL). */
  const stored = async (): Promise<{ rows: number; blobs: number }> => {
    const h = get();
    const rows = (await h.db.selectFrom('files').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n;
    let blobs: number;
    if (h.engine === 'postgres') {
      blobs = Number((await h.db.selectFrom('file_blobs').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n);
    } else {
      const dir = join(dirname(h.database.sqliteFile), 'files');
      let names: string[] = [];
      try {
        names = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
      } catch {
        names = [];
      }
      blobs = names.length;
    }
    return { rows: Number(rows), blobs };
  };
  return { request, upload, paidPayment, stored };
}

const png = sampleFile('png', 2048);
const pdf = sampleFile('pdf', 512);
const filePart = (bytes: Uint8Array, contentType = 'image/png', filename = 'receipt.png'): MultipartPart => ({ name: 'file', filename, contentType, bytes });

forEachEngine('Disputes API, default account (today)', (engine) => {
  let h: Harness;
  const { request, upload, paidPayment, stored } = harnessHelpers(() => h);

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => h?.close());

  test('the list answers an empty array, the totals zero counts, the filters empty facets', async () => {
    expect(await expectOk(await request('GET', '/disputes/list'))).toEqual([]);
    expect(await expectOk(await request('GET', '/disputes/list?dispute_status=dispute_opened,dispute_won&limit=5'))).toEqual([]);
    const totals = await expectOk(await request('GET', '/disputes/aggregate?start_time=2020-01-01T00:00:00Z'));
    expect(totals).toEqual({ status_with_count: Object.fromEntries(DISPUTE_STATUSES.map((status) => [status, 0])) });
    expect(await expectOk(await request('GET', '/disputes/filter'))).toEqual({ currency: [], dispute_status: [], dispute_stage: [], merchant_connector_id: [] });
  });

  test('an unknown dispute is a 404 on every operation, and the message does not repeat the id', async () => {
    const id = 'dp_NoSuchDispute00000000';
    for (const [method, path, body] of [
      ['GET', `/disputes/${id}`],
      ['GET', `/disputes/${id}?force_sync=true`],
      ['POST', `/disputes/accept/${id}`],
      ['GET', `/disputes/evidence/${id}`],
      ['POST', '/disputes/evidence', { dispute_id: id, uncategorized_text: 'x' }],
      ['DELETE', '/disputes/evidence', { dispute_id: id, evidence_type: 'receipt' }],
    ] as const) {
      const error = await expectApiError(await request(method, path, body === undefined ? {} : { body }), 'ERR_4060');
      expect(String(error['message'])).not.toContain(id);
    }
  });

  test('POST /files with an unknown or missing dispute_id is refused and writes nothing', async () => {
    const error = await expectApiError(
      await upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: 'dp_unknown' }, filePart(png)]),
      'ERR_4060',
      'dispute_id',
    );
    expect(String(error['message'])).not.toContain('dp_unknown');
    await expectApiError(await upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, filePart(png)]), 'ERR_2001', 'dispute_id');
    expect(await stored()).toEqual({ rows: 0, blobs: 0 });
  });

  test('unknown files are 404; the query is strict; start_time is required by the totals', async () => {
    await expectApiError(await request('GET', '/files/file_unknown'), 'ERR_4061');
    await expectApiError(await request('DELETE', '/files/file_unknown'), 'ERR_4061');
    await expectApiError(await request('GET', '/disputes/list?colour=red'), 'ERR_2004', 'colour');
    await expectApiError(await request('GET', '/disputes/list?dispute_status=dispute_maybe'), 'ERR_2003');
    await expectApiError(await request('GET', '/disputes/aggregate'), 'ERR_2001', 'start_time');
  });

  test('nothing raises a dispute: the simulator refuses on an account whose rails report none', async () => {
    const payment = await paidPayment();
    await expectApiError(await request('POST', '/simulator/disputes', { body: { payment_id: payment.payment_id } }), 'ERR_4064');
    expect(await expectOk(await request('GET', '/disputes/list'))).toEqual([]);
  });

  test('dispute routes take the secret key only', async () => {
    await expectApiError(await request('GET', '/disputes/list', { key: h.publishableKey }), 'ERR_1003');
    await expectApiError(await request('GET', '/disputes/list', { key: null }), 'ERR_1001');
  });
});

forEachEngine('Disputes API, disputes on (simulator lifecycle)', (engine) => {
  let h: Harness;
  let liveKey: string;
  const { request, upload, paidPayment, stored } = harnessHelpers(() => h);
  const scope = () => ({ accountId: h.boot.account.accountId, mode: 'test' as const });
  /** The dispute's event types (sorted: the clock stands still, so events of one instant have no order). */
  const events = async (disputeId: string) => (await h.store.outbox.listEventsForObject(scope(), disputeId)).map((event) => event.eventType).sort();
  const raise = async (body: Json = {}): Promise<DisputeResponse> => {
    const payment = await paidPayment();
    return expectOk<DisputeResponse>(await request('POST', '/simulator/disputes', { body: { payment_id: payment.payment_id, ...body } }));
  };
  const uploadFor = async (disputeId: string, bytes: Uint8Array = png): Promise<string> =>
    (
      await expectOk<{ file_id: string }>(
        await upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: disputeId }, filePart(bytes)]),
      )
    ).file_id;
  const attach = (disputeId: string, evidenceType: string, file: MultipartPart) =>
    upload('PUT', '/disputes/evidence', [{ name: 'dispute_id', value: disputeId }, { name: 'evidence_type', value: evidenceType }, file]);

  beforeAll(async () => {
    h = await createHarness(engine, { settings: DISPUTES_SETTINGS });
    liveKey = await insertLiveSecretKey(h, { fill: 'D', keyId: 'key_live_disputes_tests' });
  });
  afterAll(async () => h?.close());

  test('the simulator raises a dispute on a succeeded payment, with its dispute_opened event', async () => {
    const payment = await paidPayment(12_345);
    const dispute = await expectOk<DisputeResponse>(await request('POST', '/simulator/disputes', { body: { payment_id: payment.payment_id, reason: 'fraudulent' } }));
    expect(dispute).toMatchObject({
      payment_id: payment.payment_id,
      amount: '12345',
      currency: 'INR',
      dispute_stage: 'dispute',
      dispute_status: 'dispute_opened',
      connector_reason: 'fraudulent',
      is_already_refunded: false,
      challenge_required_by: '2025-01-08T00:00:00.000Z',
    });
    expect(dispute.dispute_id).toMatch(/^dp_[A-Za-z0-9]{20}$/);
    expect(await expectOk(await request('GET', `/disputes/${dispute.dispute_id}`))).toEqual(dispute);
    const outbox = await h.store.outbox.listEventsForObject(scope(), dispute.dispute_id);
    expect(outbox.map((event) => event.eventType)).toEqual(['dispute_opened']);
    expect(outbox[0]?.objectType).toBe('dispute');
    expect(outbox[0]?.payload).toMatchObject({ event_type: 'dispute_opened', content: { type: 'dispute_details', object: { dispute_id: dispute.dispute_id, amount: '12345' } } });
  });

  test('the simulator refuses a payment that was not paid, an amount above the captured one, and live keys', async () => {
    const unpaid = await expectOk<PaymentResponse>(await request('POST', '/payments', { body: { amount: 5000, currency: 'INR' } }));
    await expectApiError(await request('POST', '/simulator/disputes', { body: { payment_id: unpaid.payment_id } }), 'ERR_4003');
    const paid = await paidPayment(1000);
    await expectApiError(await request('POST', '/simulator/disputes', { body: { payment_id: paid.payment_id, amount: 1001 } }), 'ERR_2003', 'amount');
    await expectApiError(await request('POST', '/simulator/disputes', { body: { payment_id: 'pay_unknown' } }), 'ERR_4001', 'payment_id');
    await expectApiError(await request('POST', '/simulator/disputes', { key: liveKey, body: { payment_id: paid.payment_id } }), 'ERR_4064');
  });

  test('a refunded payment is disputed with is_already_refunded', async () => {
    const payment = await paidPayment(10_000);
    await expectOk(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 1000 } }));
    const dispute = await expectOk<DisputeResponse>(await request('POST', '/simulator/disputes', { body: { payment_id: payment.payment_id, amount: 9000 } }));
    expect(dispute).toMatchObject({ amount: '9000', is_already_refunded: true });
  });

  test('evidence is attached, retrieved and deleted before submission; files come back with the detected type', async () => {
    const dispute = await raise();
    const attached = await expectOk<{ file_id: string }>(await attach(dispute.dispute_id, 'receipt', filePart(png)));
    expect(attached.file_id).toMatch(/^file_[A-Za-z0-9]{20}$/);
    const blocks = await expectOk<EvidenceBlock[]>(await request('GET', `/disputes/evidence/${dispute.dispute_id}`));
    expect(blocks).toEqual([
      { evidence_type: 'receipt', file_metadata_response: { file_id: attached.file_id, file_name: 'receipt.png', file_size: png.length, file_type: 'image/png', available: true } },
    ]);
    const file = await request('GET', `/files/${attached.file_id}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(png);

    await expectOk(await request('DELETE', '/disputes/evidence', { body: { dispute_id: dispute.dispute_id, evidence_type: 'receipt' } }));
    expect(await expectOk(await request('GET', `/disputes/evidence/${dispute.dispute_id}`))).toEqual([]);
    await expectApiError(await request('DELETE', '/disputes/evidence', { body: { dispute_id: dispute.dispute_id, evidence_type: 'receipt' } }), 'ERR_4065', 'evidence_type');
    // Detaching keeps the file: it is still a file of the dispute.
    expect((await request('GET', `/files/${attached.file_id}`)).status).toBe(200);
    expect(await events(dispute.dispute_id)).toEqual(['dispute_opened']);
  });

  test('the type comes from the bytes: a PNG declared as PDF is a PNG; plain text is refused and nothing is kept', async () => {
    const dispute = await raise();
    const fileId = await uploadFor(dispute.dispute_id, png);
    const declaredPdf = await expectOk<{ file_id: string }>(await attach(dispute.dispute_id, 'refund_policy', filePart(png, 'application/pdf', 'policy.pdf')));
    expect((await request('GET', `/files/${declaredPdf.file_id}`)).headers.get('content-type')).toBe('image/png');
    expect((await request('GET', `/files/${fileId}`)).headers.get('content-type')).toBe('image/png');
    const pdfId = await uploadFor(dispute.dispute_id, pdf);
    expect((await request('GET', `/files/${pdfId}`)).headers.get('content-type')).toBe('application/pdf');

    const before = await stored();
    const text = sampleFile('text', 200);
    const error = await expectApiError(
      await upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(text, 'application/pdf', 'letter.pdf')]),
      'ERR_4063',
      'file',
    );
    expect(error['message']).toBe('File content type not found');
    await expectApiError(await attach(dispute.dispute_id, 'receipt', filePart(text, 'text/plain', 'letter.txt')), 'ERR_4063', 'file');
    expect(await stored()).toEqual(before);
  });

  test('an oversized upload answers 413 and leaves nothing half-written', async () => {
    const dispute = await raise();
    const before = await stored();
    const big = sampleFile('png', FILE_LIMITS.maxFileBytes + 1);
    await expectApiError(
      await upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(big)]),
      'ERR_2009',
    );
    await expectApiError(await attach(dispute.dispute_id, 'receipt', filePart(big)), 'ERR_2009');
    // A declared length beyond the limit is refused before anything is read.
    await expectApiError(
      await upload('POST', '/files', [filePart(png)], { headers: { 'content-length': String(FILE_LIMITS.maxFileBytes * 2) } }),
      'ERR_2009',
    );
    // A body without a declared length is counted as it streams: a preamble beyond the multipart allowance stops it.
    const { body, contentType } = multipartBody([{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png)]);
    const padded = Buffer.concat([Buffer.alloc(FILE_LIMITS.maxFileBytes + FILE_LIMITS.multipartOverheadBytes, 0x20), body]);
    await expectApiError(await h.app.request('/files', { method: 'POST', headers: { 'api-key': h.secretKey, 'content-type': contentType }, body: new Uint8Array(padded) }), 'ERR_2009');
    expect(await stored()).toEqual(before);
    // A file at the limit is accepted (the route's limit is its own, not the API's 256 KiB).
    const atLimit = sampleFile('png', FILE_LIMITS.maxFileBytes);
    const fileId = await uploadFor(dispute.dispute_id, atLimit);
    expect((await request('GET', `/files/${fileId}`)).headers.get('content-length') ?? String(atLimit.length)).toBe(String(atLimit.length));
  });

  test('a truncated or malformed multipart body answers ERR_2010 and leaves nothing', async () => {
    const dispute = await raise();
    const before = await stored();
    const parts: MultipartPart[] = [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(sampleFile('png', 50_000))];
    await expectApiError(await upload('POST', '/files', parts, { cut: 20_000 }), 'ERR_2010');
    await expectApiError(await upload('PUT', '/disputes/evidence', [{ name: 'dispute_id', value: dispute.dispute_id }, { name: 'evidence_type', value: 'receipt' }, filePart(png)], { cut: 30 }), 'ERR_2010');
    // A part without a name, and fields named after Object's own properties, are refused as such.
    const raw = (text: string) =>
      h.app.request('/files', { method: 'POST', headers: { 'api-key': h.secretKey, 'content-type': 'multipart/form-data; boundary=b' }, body: text });
    await expectApiError(await raw('--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--\r\n'), 'ERR_2010');
    const namelessFile = await expectApiError(await raw('--b\r\nContent-Disposition: form-data; filename="a.png"\r\n\r\nx\r\n--b--\r\n'), 'ERR_2010');
    expect(namelessFile['field_name']).toBeUndefined();
    for (const name of ['__proto__', 'constructor', 'toString']) {
      await expectApiError(await raw(`--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\nx\r\n--b--\r\n`), 'ERR_2004', name);
    }
    const noBoundary = await h.app.request('/files', { method: 'POST', headers: { 'api-key': h.secretKey, 'content-type': 'multipart/form-data' }, body: 'x' });
    await expectApiError(noBoundary, 'ERR_2010');
    await expectApiError(await request('POST', '/files', { body: { purpose: 'dispute_evidence' } }), 'ERR_2008');
    await expectApiError(await upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png), filePart(png)]), 'ERR_2010');
    expect(await stored()).toEqual(before);
  });

  test('file names: UTF-8 kept, a path reduced to its last segment, control characters, lone surrogates and overlong names refused; a file part needs a filename', async () => {
    const dispute = await raise();
    const fields: MultipartPart[] = [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }];
    const nameOf = async (part: MultipartPart): Promise<string | null | undefined> => {
      const { file_id } = await expectOk<{ file_id: string }>(await attach(dispute.dispute_id, 'receipt', part));
      const blocks = await expectOk<EvidenceBlock[]>(await request('GET', `/disputes/evidence/${dispute.dispute_id}`));
      return blocks.find((block) => block.file_metadata_response.file_id === file_id)?.file_metadata_response.file_name;
    };
    expect(await nameOf({ name: 'file', filename: 'reçu N°7.png', contentType: 'image/png', bytes: png })).toBe('reçu N°7.png');
    expect(await nameOf({ name: 'file', filenameStar: "UTF-8''..%2F..%2Freceipt.png", contentType: 'image/png', bytes: png })).toBe('receipt.png');
    expect(await nameOf({ name: 'file', filenameStar: "UTF-8''..", contentType: 'image/png', bytes: png })).toBeNull();
    expect(await nameOf({ name: 'file', filenameStar: "UTF-16LE''%3D%D8%00%DEx%00.%00p%00n%00g%00", contentType: 'image/png', bytes: png })).toBe('\u{1F600}x.png');

    const before = await stored();
    await expectApiError(await upload('POST', '/files', [...fields, { name: 'file', filenameStar: "UTF-8''a%00b.png", contentType: 'image/png', bytes: png }]), 'ERR_2003', 'file');
    await expectApiError(await upload('POST', '/files', [...fields, { name: 'file', filenameStar: "UTF-8''a%0Db.png", contentType: 'image/png', bytes: png }]), 'ERR_2003', 'file');
    // A lone UTF-16 surrogate (UTF-16LE, which busboy decodes): SQLite and PostgreSQL each stored another replacement.
    await expectApiError(await upload('POST', '/files', [...fields, { name: 'file', filenameStar: "UTF-16LE''a%00%00%D8.%00p%00n%00g%00", contentType: 'image/png', bytes: png }]), 'ERR_2003', 'file');
    await expectApiError(await upload('POST', '/files', [...fields, filePart(png, 'image/png', `${'x'.repeat(FILE_LIMITS.fileNameMax)}.png`)]), 'ERR_2003', 'file');
    // Without a filename the part is not a file (multipart/form-data, RFC 7578 §4.2): refused as such, whatever its size.
    for (const bytes of [sampleFile('png', 100), png]) {
      const error = await expectApiError(await upload('POST', '/files', [...fields, { name: 'file', contentType: 'image/png', bytes }]), 'ERR_2010', 'file');
      expect(String(error['message'])).toContain('filename');
    }
    expect(await stored()).toEqual(before);
  });

  test('POST /files: purpose must be dispute_evidence, the form is strict, the file is required', async () => {
    const dispute = await raise();
    const before = await stored();
    const withFields = (fields: MultipartPart[]) => upload('POST', '/files', [...fields, filePart(png)]);
    await expectApiError(await withFields([{ name: 'dispute_id', value: dispute.dispute_id }]), 'ERR_2001', 'purpose');
    await expectApiError(await withFields([{ name: 'purpose', value: 'identity_document' }, { name: 'dispute_id', value: dispute.dispute_id }]), 'ERR_2003', 'purpose');
    const unknownField = await expectApiError(
      await withFields([{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, { name: 'colour', value: 'red' }]),
      'ERR_2004',
      'colour',
    );
    expect(unknownField['message']).toBe('Unknown form field: colour.');
    await expectApiError(await upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }]), 'ERR_2001', 'file');
    await expectApiError(await attach(dispute.dispute_id, 'selfie', filePart(png)), 'ERR_2003', 'evidence_type');
    await expectApiError(
      await upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(new Uint8Array())]),
      'ERR_2003',
      'file',
    );
    // A live key does not reach a test dispute.
    await expectApiError(
      await upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png)], { headers: { 'api-key': liveKey } }),
      'ERR_4060',
      'dispute_id',
    );
    expect(await stored()).toEqual(before);
  });

  test('concurrent evidence changes keep each other: attaches of several types, and a submit racing attaches', async () => {
    const dispute = await raise();
    const types = ['receipt', 'invoice_showing_distinct_transactions', 'customer_communication', 'refund_policy', 'shipping_documentation', 'uncategorized_file'];
    const attached = await Promise.all(types.map(async (type) => (await expectOk<{ file_id: string }>(await attach(dispute.dispute_id, type, filePart(png)))).file_id));
    const blocks = await expectOk<EvidenceBlock[]>(await request('GET', `/disputes/evidence/${dispute.dispute_id}`));
    expect(Object.fromEntries(blocks.map((block) => [block.evidence_type, block.file_metadata_response?.file_id]))).toEqual(
      Object.fromEntries(types.map((type, i) => [type, attached[i]])),
    );
    // Whatever the order they land in, an attach answered 200 is in the submitted evidence; any other is refused
    // because the dispute was submitted (ERR_4062).
    const racing = await raise();
    const raceTypes = types.slice(0, 5);
    const [submitted, ...answers] = await Promise.all([
      request('POST', '/disputes/evidence', { body: { dispute_id: racing.dispute_id, product_description: 'Blue shoes' } }),
      ...raceTypes.map((type) => attach(racing.dispute_id, type, filePart(png))),
    ]);
    await expectOk(submitted!);
    const submittedTypes = (await expectOk<EvidenceBlock[]>(await request('GET', `/disputes/evidence/${racing.dispute_id}`))).map((block) => block.evidence_type);
    for (const [i, answer] of answers.entries()) {
      if (answer.status === 200) expect(submittedTypes, raceTypes[i]).toContain(raceTypes[i]);
      else await expectApiError(answer, 'ERR_4062');
    }
  });

  test('submit, then won: files submitted stay with the dispute when deleted; nothing changes after submission', async () => {
    const dispute = await raise();
    const other = await raise();
    const receipt = await uploadFor(dispute.dispute_id);
    const draft = await uploadFor(dispute.dispute_id);
    await expectOk(await attach(dispute.dispute_id, 'customer_communication', filePart(pdf, 'application/pdf', 'mail.pdf')));
    const foreign = await uploadFor(other.dispute_id);

    await expectApiError(await request('POST', '/disputes/evidence', { body: { dispute_id: dispute.dispute_id, receipt: foreign } }), 'ERR_4066', 'receipt');
    await expectApiError(await request('POST', '/disputes/evidence', { body: { dispute_id: dispute.dispute_id, receipt: 'file_unknown' } }), 'ERR_4061', 'receipt');
    await expectApiError(await request('POST', '/disputes/evidence', { body: { dispute_id: dispute.dispute_id, shoe_size: '42' } }), 'ERR_2004', 'shoe_size');

    // A draft file deleted before submission is gone, bytes and all.
    expect(await expectOk(await request('DELETE', `/files/${draft}`))).toEqual({ file_id: draft, deleted: true, kept_as_evidence: false });
    await expectApiError(await request('GET', `/files/${draft}`), 'ERR_4061');

    const submitted = await expectOk<DisputeResponse>(
      await request('POST', '/disputes/evidence', {
        body: { dispute_id: dispute.dispute_id, receipt, uncategorized_file: receipt, product_description: 'Blue shoes, size 42', customer_email_address: 'buyer@example.com' },
      }),
    );
    expect(submitted).toMatchObject({ dispute_status: 'dispute_challenged', evidence_submitted_at: '2025-01-01T00:00:00.000Z' });
    const types = (await expectOk<EvidenceBlock[]>(await request('GET', `/disputes/evidence/${dispute.dispute_id}`))).map((block) => block.evidence_type);
    expect(types).toEqual(['customer_communication', 'receipt', 'uncategorized_file']);

    await expectApiError(await attach(dispute.dispute_id, 'receipt', filePart(png)), 'ERR_4062');
    await expectApiError(await request('DELETE', '/disputes/evidence', { body: { dispute_id: dispute.dispute_id, evidence_type: 'receipt' } }), 'ERR_4062');
    await expectApiError(await request('POST', `/disputes/accept/${dispute.dispute_id}`), 'ERR_4062');
    await expectApiError(await request('POST', '/disputes/evidence', { body: { dispute_id: dispute.dispute_id } }), 'ERR_4062');

    // Deleting a submitted file: success for its owner, but it stays with the dispute (record and bytes kept).
    const beforeDelete = await stored();
    expect(await expectOk(await request('DELETE', `/files/${receipt}`))).toEqual({ file_id: receipt, deleted: true, kept_as_evidence: true });
    expect(await stored()).toEqual(beforeDelete);
    await expectApiError(await request('GET', `/files/${receipt}`), 'ERR_4061');
    await expectApiError(await request('DELETE', `/files/${receipt}`), 'ERR_4061');
    const blocks = await expectOk<EvidenceBlock[]>(await request('GET', `/disputes/evidence/${dispute.dispute_id}`));
    expect(blocks.find((block) => block.evidence_type === 'receipt')?.file_metadata_response).toMatchObject({ file_id: receipt, available: true });

    const won = await expectOk<DisputeResponse>(await request('POST', `/simulator/disputes/${dispute.dispute_id}/outcome`, { body: { outcome: 'won' } }));
    expect(won.dispute_status).toBe('dispute_won');
    await expectApiError(await request('POST', `/simulator/disputes/${dispute.dispute_id}/outcome`, { body: { outcome: 'lost' } }), 'ERR_4062');
    expect(await events(dispute.dispute_id)).toEqual(['dispute_challenged', 'dispute_opened', 'dispute_won']);
  });

  test('a submit racing a DELETE /files never submits a file that is gone', async () => {
    for (let round = 0; round < 8; round++) {
      const dispute = await raise();
      const fileId = await uploadFor(dispute.dispute_id);
      const [submit, removal] = await Promise.all([
        request('POST', '/disputes/evidence', { body: { dispute_id: dispute.dispute_id, receipt: fileId } }),
        request('DELETE', `/files/${fileId}`),
      ]);
      const deleted = await expectOk<{ kept_as_evidence: boolean }>(removal);
      const blocks = await expectOk<EvidenceBlock[]>(await request('GET', `/disputes/evidence/${dispute.dispute_id}`));
      if (submit.status === 200) {
        // Submitted first: the file stayed with the dispute.
        expect(deleted.kept_as_evidence).toBe(true);
        expect(blocks.map((block) => block.file_metadata_response.file_id)).toEqual([fileId]);
      } else {
        await expectApiError(submit, 'ERR_4061');
        expect(deleted.kept_as_evidence).toBe(false);
        expect(blocks).toEqual([]);
        expect((await expectOk<DisputeResponse>(await request('GET', `/disputes/${dispute.dispute_id}`))).dispute_status).toBe('dispute_opened');
      }
    }
  });

  test('accept is final; an unanswered dispute can be lost', async () => {
    const accepted = await raise();
    const done = await expectOk<DisputeResponse>(await request('POST', `/disputes/accept/${accepted.dispute_id}`));
    expect(done.dispute_status).toBe('dispute_accepted');
    await expectApiError(await request('POST', `/disputes/accept/${accepted.dispute_id}`), 'ERR_4062');
    await expectApiError(await request('POST', `/simulator/disputes/${accepted.dispute_id}/outcome`, { body: { outcome: 'won' } }), 'ERR_4062');
    await expectApiError(await request('POST', '/disputes/evidence', { body: { dispute_id: accepted.dispute_id } }), 'ERR_4062');
    expect(await events(accepted.dispute_id)).toEqual(['dispute_accepted', 'dispute_opened']);

    const lost = await raise();
    expect((await expectOk<DisputeResponse>(await request('POST', `/simulator/disputes/${lost.dispute_id}/outcome`, { body: { outcome: 'lost' } }))).dispute_status).toBe('dispute_lost');
    expect(await events(lost.dispute_id)).toEqual(['dispute_lost', 'dispute_opened']);
    await expectApiError(await request('POST', `/simulator/disputes/${lost.dispute_id}/outcome`, { body: { outcome: 'draw' } }), 'ERR_2003', 'outcome');
  });

  test('list filters, totals and facets over real disputes; live keys see none of them', async () => {
    h.clock.advance(60_000);
    const first = await raise({ reason: 'product_not_received' });
    h.clock.advance(60_000);
    const second = await raise({ reason: 'fraudulent' });
    await expectOk(await request('POST', `/disputes/accept/${second.dispute_id}`));

    const all = await expectOk<DisputeResponse[]>(await request('GET', '/disputes/list?limit=100'));
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(all[0]?.dispute_id).toBe(second.dispute_id);
    const ids = (list: DisputeResponse[]) => list.map((dispute) => dispute.dispute_id);
    expect(ids(await expectOk(await request('GET', `/disputes/list?dispute_id=${first.dispute_id}`)))).toEqual([first.dispute_id]);
    expect(ids(await expectOk(await request('GET', `/disputes/list?payment_id=${second.payment_id}`)))).toEqual([second.dispute_id]);
    expect(ids(await expectOk(await request('GET', '/disputes/list?reason=product_not_received')))).toEqual([first.dispute_id]);
    const accepted = await expectOk<DisputeResponse[]>(await request('GET', '/disputes/list?dispute_status=dispute_accepted&limit=100'));
    expect(accepted.every((dispute) => dispute.dispute_status === 'dispute_accepted')).toBe(true);
    expect(ids(accepted)).toContain(second.dispute_id);
    expect(await expectOk(await request('GET', '/disputes/list?currency=USD'))).toEqual([]);
    expect(await expectOk(await request('GET', '/disputes/list?dispute_stage=pre_arbitration'))).toEqual([]);
    expect(ids(await expectOk(await request('GET', `/disputes/list?start_time=${encodeURIComponent(second.created_at)}`)))).toEqual([second.dispute_id]);
    expect(ids(await expectOk(await request('GET', `/disputes/list?limit=1&offset=1`)))).toEqual([first.dispute_id]);

    const totals = await expectOk<{ status_with_count: Record<string, number> }>(await request('GET', '/disputes/aggregate?start_time=2020-01-01T00:00:00Z'));
    const listed = await expectOk<DisputeResponse[]>(await request('GET', '/disputes/list?limit=100'));
    for (const status of DISPUTE_STATUSES) {
      expect(totals.status_with_count[status], status).toBe(listed.filter((dispute) => dispute.dispute_status === status).length);
    }
    const recent = await expectOk<{ status_with_count: Record<string, number> }>(
      await request('GET', `/disputes/aggregate?start_time=${encodeURIComponent(second.created_at)}`),
    );
    expect(recent.status_with_count).toMatchObject({ dispute_accepted: 1, dispute_opened: 0 });

    const facets = await expectOk<Json>(await request('GET', '/disputes/filter'));
    expect(facets['currency']).toEqual(['INR']);
    expect(facets['dispute_stage']).toEqual(['dispute']);
    expect(facets['dispute_status']).toEqual(expect.arrayContaining(['dispute_opened', 'dispute_accepted']));
    expect(facets['merchant_connector_id']).toEqual([]);

    expect(await expectOk(await request('GET', '/disputes/list', { key: liveKey }))).toEqual([]);
    await expectApiError(await request('GET', `/disputes/${first.dispute_id}`, { key: liveKey }), 'ERR_4060');
  });

  test('POST /files refuses a dispute that no longer takes evidence (challenged, accepted, won, lost): ERR_4062, nothing stored', async () => {
    const challenged = await raise();
    await expectOk(await request('POST', '/disputes/evidence', { body: { dispute_id: challenged.dispute_id, product_description: 'Blue shoes' } }));
    const accepted = await raise();
    await expectOk(await request('POST', `/disputes/accept/${accepted.dispute_id}`));
    const won = await raise();
    await expectOk(await request('POST', `/simulator/disputes/${won.dispute_id}/outcome`, { body: { outcome: 'won' } }));
    const lost = await raise();
    await expectOk(await request('POST', `/simulator/disputes/${lost.dispute_id}/outcome`, { body: { outcome: 'lost' } }));
    const before = await stored();
    for (const dispute of [challenged, accepted, won, lost]) {
      const parts: MultipartPart[] = [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }];
      await expectApiError(await upload('POST', '/files', [...parts, filePart(png)]), 'ERR_4062');
      // The status answers before the content.
      await expectApiError(await upload('POST', '/files', [...parts, filePart(new TextEncoder().encode('plain text'), 'text/plain', 'a.txt')]), 'ERR_4062');
    }
    expect(await stored()).toEqual(before);
  });

  test('POST /files refuses a dispute whose status changed after it was read: the insert is conditional on the status', async () => {
    const dispute = await raise();
    // The upload reads the dispute while it is open; it is accepted before the file's insert.
    const opened = await h.store.disputes.findDispute(scope(), dispute.dispute_id);
    await expectOk(await request('POST', `/disputes/accept/${dispute.dispute_id}`));
    const staleDisputes = new Proxy(h.store.disputes, {
      get: (target, key) => (key === 'findDispute' ? async () => opened : Reflect.get(target, key)),
    });
    const store = new Proxy(h.core.store, { get: (target, key) => (key === 'disputes' ? staleDisputes : Reflect.get(target, key)) });
    const app = createApp({ ...h.core, store, logger: createLogger('silent'), publicBaseUrl: 'http://127.0.0.1:8080', publicJsUrl: 'http://127.0.0.1:8081', rateLimits: undefined });
    const before = await stored();
    const { body, contentType } = multipartBody([{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png)]);
    const answer = await app.request('/files', { method: 'POST', headers: { 'api-key': h.secretKey, 'content-type': contentType }, body: new Uint8Array(body) });
    await expectApiError(answer, 'ERR_4062');
    expect(await stored()).toEqual(before);
  });

  test('a dispute takes at most FILE_LIMITS.maxFilesPerDispute files: concurrent uploads never pass it, one more is ERR_4067 and writes nothing, a deleted file frees its place', async () => {
    const dispute = await raise();
    const max = FILE_LIMITS.maxFilesPerDispute;
    const answers = await Promise.all(
      Array.from({ length: max + 5 }, () =>
        upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png)]),
      ),
    );
    const accepted: string[] = [];
    for (const answer of answers) {
      if (answer.status === 200) accepted.push((await expectOk<{ file_id: string }>(answer)).file_id);
      else await expectApiError(answer, 'ERR_4067', 'dispute_id');
    }
    expect(accepted).toHaveLength(max);
    const before = await stored();
    const refused = await expectApiError(
      await upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png)]),
      'ERR_4067',
      'dispute_id',
    );
    expect(String(refused['message'])).toContain(String(max));
    await expectApiError(await attach(dispute.dispute_id, 'receipt', filePart(png)), 'ERR_4067', 'dispute_id');
    expect(await stored()).toEqual(before);
    // Another dispute is not affected; a deleted file frees its place.
    await uploadFor((await raise()).dispute_id);
    await expectOk(await request('DELETE', `/files/${accepted[0]}`));
    await expectOk(await attach(dispute.dispute_id, 'receipt', filePart(png)));
    await expectApiError(await attach(dispute.dispute_id, 'receipt', filePart(png)), 'ERR_4067', 'dispute_id');
  });

  test('a form field in a charset the parser cannot decode is refused naming the field and the charset; UTF-8 and Latin-1 fields are read', async () => {
    const dispute = await raise();
    const before = await stored();
    /** The form with a purpose part of these headers, streamed in 5-byte chunks (part headers cut across chunks). */
    const send = (purposeHeaders: string) => {
      const body = Buffer.concat([
        Buffer.from(`--b\r\nContent-Disposition: form-data; name="purpose"\r\n${purposeHeaders}\r\n\r\ndispute_evidence\r\n`),
        Buffer.from(`--b\r\nContent-Disposition: form-data; name="dispute_id"\r\n\r\n${dispute.dispute_id}\r\n`),
        Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="r.png"\r\nContent-Type: image/png\r\n\r\n'),
        Buffer.from(png),
        Buffer.from('\r\n--b--\r\n'),
      ]);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < body.length; at += 5) controller.enqueue(new Uint8Array(body.subarray(at, at + 5)));
          controller.close();
        },
      });
      return h.app.request('/files', {
        method: 'POST',
        headers: { 'api-key': h.secretKey, 'content-type': 'multipart/form-data; boundary=b' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
    };
    for (const [headers, charset] of [
      ['Content-Type: text/plain; charset=shift_jis', 'shift_jis'],
      ['Content-Type: text/plain; charset="x-user-defined"', 'x-user-defined'],
    ] as const) {
      const error = await expectApiError(await send(headers), 'ERR_2003', 'purpose');
      expect(error['message']).toBe(`The form field purpose declares charset ${charset}, which Rail cannot decode; send form fields in UTF-8.`);
    }
    expect(await stored()).toEqual(before);
    await expectOk(await send('Content-Type: text/plain; charset=utf-8'));
    await expectOk(await send('Content-Type: text/plain; charset=ISO-8859-1'));
  });

  test('a DELETE /files whose bytes cannot be removed still deletes the file: 200, record and evidence gone, the bytes left to the sweep', async () => {
    const dispute = await raise();
    const { file_id: fileId } = await expectOk<{ file_id: string }>(await attach(dispute.dispute_id, 'receipt', filePart(png)));
    const before = await stored();
    const blobs = h.core.fileBlobs!;
    const failing = Object.assign(Object.create(blobs) as FileBlobStore, {
      deleteBlob: async () => {
        throw Object.assign(new Error('EIO: i/o error, unlink'), { code: 'EIO' });
      },
    });
    const app = createApp({ ...h.core, fileBlobs: failing, logger: createLogger('silent'), publicBaseUrl: 'http://127.0.0.1:8080', publicJsUrl: 'http://127.0.0.1:8081', rateLimits: undefined });
    const answer = await app.request(`/files/${fileId}`, { method: 'DELETE', headers: { 'api-key': h.secretKey } });
    expect(await expectOk(answer)).toEqual({ file_id: fileId, deleted: true, kept_as_evidence: false });
    await expectApiError(await request('GET', `/files/${fileId}`), 'ERR_4061');
    await expectApiError(await request('DELETE', `/files/${fileId}`), 'ERR_4061');
    expect(await expectOk(await request('GET', `/disputes/evidence/${dispute.dispute_id}`))).toEqual([]);
    const after = await stored();
    expect(after.rows).toBe(before.rows - 1);
    // PostgreSQL deletes the bytes with their record; on disk they stay until the orphan sweep.
    expect(after.blobs).toBe(engine === 'postgres' ? before.blobs - 1 : before.blobs);
  });

  test('the orphan sweep removes stored bytes that no record names once they are an hour old, and nothing else', async () => {
    const dispute = await raise();
    const recorded = await uploadFor(dispute.dispute_id, pdf);
    const old = new Date(h.clock.now().getTime() - ORPHAN_BLOB_AGE_MS - 60_000);
    const recent = h.clock.now();
    const orphan = (name: string) => `file_${name}${'0'.repeat(20 - name.length)}`;
    const present: Record<string, () => Promise<boolean>> = {};
    if (engine === 'postgres') {
      const row = (fileId: string, at: Date) => ({ account_id: scope().accountId, mode: 'test' as const, file_id: fileId, bytes: Buffer.from('%PDF-'), created_at: at.toISOString() });
      await h.db.insertInto('file_blobs').values([row(orphan('Old'), old), row(orphan('Recent'), recent)]).execute();
      await h.db.updateTable('file_blobs').set({ created_at: old.toISOString() }).where('file_id', '=', recorded).execute();
      for (const fileId of [orphan('Old'), orphan('Recent')]) {
        present[fileId] = async () => (await h.db.selectFrom('file_blobs').select('file_id').where('file_id', '=', fileId).executeTakeFirst()) !== undefined;
      }
    } else {
      const folder = join(dirname(h.database.sqliteFile), 'files', scope().accountId, 'test');
      mkdirSync(folder, { recursive: true });
      const place = (name: string, at?: Date) => {
        writeFileSync(join(folder, name), '%PDF-');
        if (at !== undefined) utimesSync(join(folder, name), at, at);
        present[name] = async () => existsSync(join(folder, name));
      };
      // A crash between the bytes and their record, one mid-write (.part), and an upload of now.
      place(orphan('Old'), old);
      place(`${orphan('Part')}.part`, old);
      place(orphan('Recent'));
      utimesSync(join(folder, recorded), old, old);
    }
    expect(await sweepOrphanBlobs(h.core)).toBe(engine === 'postgres' ? 1 : 2);
    expect(Object.fromEntries(await Promise.all(Object.entries(present).map(async ([name, exists]) => [name, await exists()])))).toEqual(
      engine === 'postgres'
        ? { [orphan('Old')]: false, [orphan('Recent')]: true }
        : { [orphan('Old')]: false, [`${orphan('Part')}.part`]: false, [orphan('Recent')]: true },
    );
    const file = await request('GET', `/files/${recorded}`);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(pdf);
  });

  test.skipIf(engine !== 'postgres')('an upload writes its bytes with its record, in one transaction: while the record waits, no bytes are stored without it', async () => {
    const dispute = await raise();
    const withoutRecord = sql<{ n: number }>`select count(*)::int as n from file_blobs b
      where not exists (select 1 from files f where f.account_id = b.account_id and f.mode = b.mode and f.file_id = b.file_id)`;
    await withOwnConnection(
      h.database,
      async (other) => {
        const orphansBefore = (await withoutRecord.execute(other)).rows[0]!.n;
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let locked!: () => void;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        // Another session keeps inserts into files waiting, as a crash would stop the upload, between its bytes and its record.
        const holder = other.transaction().execute(async (trx) => {
          await sql`lock table files in share row exclusive mode`.execute(trx);
          locked();
          await released;
        });
        await isLocked;
        const uploading = upload('POST', '/files', [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png)]);
        try {
          for (;;) {
            const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_locks where not granted and relation = 'files'::regclass`.execute(other);
            if (waiting.rows[0]!.n > 0) break;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          expect((await withoutRecord.execute(other)).rows[0]!.n).toBe(orphansBefore);
        } finally {
          release();
          await holder;
        }
        const { file_id: fileId } = await expectOk<{ file_id: string }>(await uploading);
        expect(new Uint8Array(await (await request('GET', `/files/${fileId}`)).arrayBuffer())).toEqual(png);
        expect((await withoutRecord.execute(other)).rows[0]!.n).toBe(orphansBefore);
      },
      { poolSize: 2, keyLookups: false },
    );
  });

  test.skipIf(engine !== 'postgres')('another instance on the same PostgreSQL serves the file (bytes in file_blobs)', async () => {
    const dispute = await raise();
    const fileId = await uploadFor(dispute.dispute_id, pdf);
    const dir = mkdtempSync(join(tmpdir(), 'rail-other-instance-'));
    const other = await compose({
      databaseUrl: h.database.databaseUrl,
      sqliteFile: join(dir, 'unused.sqlite'),
      poolSize: 2,
      clock: h.clock,
      ids: cryptoIds,
      publicBaseUrl: 'http://127.0.0.1:8080',
      vaultKey: randomBytes(32),
      settings: DISPUTES_SETTINGS,
      secretsFile: memorySecretsFile({ testSecretKey: h.secretKey, testPublishableKey: h.publishableKey }),
    });
    try {
      const app = createApp({ ...other.core, logger: createLogger('silent'), publicBaseUrl: 'http://127.0.0.1:8080', publicJsUrl: 'http://127.0.0.1:8081', rateLimits: undefined });
      const response = await app.request(`/files/${fileId}`, { headers: { 'api-key': h.secretKey } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(pdf);
    } finally {
      await other.store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an upload with an Idempotency-Key is stored once and replayed', async () => {
    const dispute = await raise();
    const parts: MultipartPart[] = [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png)];
    const headers = { 'idempotency-key': `upload-${engine}` };
    const first = await expectOk<{ file_id: string }>(await upload('POST', '/files', parts, { headers }));
    const again = await upload('POST', '/files', parts, { headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await expectOk(again)).toEqual(first);
  });

  test('a re-run of POST /files under its Idempotency-Key after a crash that followed the commit answers the first run, its bytes kept', async () => {
    const dispute = await raise();
    const parts: MultipartPart[] = [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png)];
    const [method, path, key] = ['POST', '/files', `upload-rerun-${engine}`] as const;
    // The keyed upload is the dispute's last place: its re-run counts its own file among the dispute's.
    for (let i = 1; i < FILE_LIMITS.maxFilesPerDispute; i += 1) await expectOk(await upload(method, path, parts));
    const before = await stored();
    const first = await expectOk<Record<string, unknown>>(await upload(method, path, parts, { headers: { 'idempotency-key': key } }));
    // The process died after the file's commit, before its answer was stored: the claim is in flight, its lease over.
    await h.db
      .updateTable('idempotency_keys')
      .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: '2000-01-01T00:00:00.000Z' })
      .where('idempotency_key', '=', key)
      .execute();
    const rerun = await upload(method, path, parts, { headers: { 'idempotency-key': key } });
    expect(await expectOk<Record<string, unknown>>(rerun)).toEqual(first);
    const read = await apiRequest(h, 'GET', `/files/${String(first['file_id'])}`);
    expect(read.status).toBe(200);
    expect(new Uint8Array(await read.arrayBuffer())).toEqual(png);
    expect(await stored()).toEqual({ rows: before.rows + 1, blobs: before.blobs + 1 });
  });
  /**
   * A keyed upload as a version that wrote the bytes in a transaction of their own leaves a crash between them and
   * the record: a row of other bytes, written at `orphanAt`, under the id the re-run derives; no record; the key in
   * flight. Answers the re-run's parts, key and file id.
   */
  const orphanOfCrashedUpload = async (key: string, orphanAt: Date) => {
    const dispute = await raise();
    const parts: MultipartPart[] = [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png)];
    const headers = { 'idempotency-key': key };
    const fileId = (await expectOk<{ file_id: string }>(await upload('POST', '/files', parts, { headers }))).file_id;
    await h.db.deleteFrom('files').where('file_id', '=', fileId).execute();
    await h.db.deleteFrom('file_blobs').where('file_id', '=', fileId).execute();
    await h.db
      .insertInto('file_blobs')
      .values({ account_id: scope().accountId, mode: 'test', file_id: fileId, bytes: Buffer.from('%PDF-1.4 older'), created_at: orphanAt.toISOString() })
      .execute();
    await h.db
      .updateTable('idempotency_keys')
      .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: '2000-01-01T00:00:00.000Z' })
      .where('idempotency_key', '=', key)
      .execute();
    return { parts, headers, fileId };
  };
  /** The file answers `bytes`, from the one row under its id, written by the re-run (not at `orphanAt`). */
  const expectBytesOfRerun = async (fileId: string, orphanAt: Date) => {
    const read = await apiRequest(h, 'GET', `/files/${fileId}`);
    expect(read.status).toBe(200);
    expect(new Uint8Array(await read.arrayBuffer())).toEqual(png);
    const rows = await h.db.selectFrom('file_blobs').select('created_at').where('file_id', '=', fileId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.created_at).not.toBe(orphanAt.toISOString());
  };

  test.skipIf(engine !== 'postgres')('a re-run of POST /files under its Idempotency-Key replaces the bytes row an older version left without its record', async () => {
    const orphanAt = new Date(h.clock.now().getTime() - 60_000);
    const { parts, headers, fileId } = await orphanOfCrashedUpload(`upload-orphan-${engine}`, orphanAt);
    expect(await expectOk(await upload('POST', '/files', parts, { headers }))).toEqual({ file_id: fileId });
    await expectBytesOfRerun(fileId, orphanAt);
  });

  test.skipIf(engine !== 'postgres')('a re-run that meets the orphan sweep removing the same row waits for it, then stores its bytes', async () => {
    const orphanAt = new Date(h.clock.now().getTime() - ORPHAN_BLOB_AGE_MS - 60_000);
    const { parts, headers, fileId } = await orphanOfCrashedUpload(`upload-orphan-swept-${engine}`, orphanAt);
    await withOwnConnection(
      h.database,
      async (other) => {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let deleted!: () => void;
        const isDeleted = new Promise<void>((resolve) => (deleted = resolve));
        // The sweep's removal of the row, its transaction held open.
        const sweep = other.transaction().execute(async (trx) => {
          const before = new Date(h.clock.now().getTime() - ORPHAN_BLOB_AGE_MS);
          expect(await new SqlFileBlobStore(trx).deleteBlobsWrittenBefore(scope(), [fileId], before)).toBe(1);
          deleted();
          await released;
        });
        await isDeleted;
        const rerun = upload('POST', '/files', parts, { headers });
        try {
          for (;;) {
            const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_locks where not granted and locktype = 'transactionid'`.execute(other);
            if (waiting.rows[0]!.n > 0) break;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        } finally {
          release();
          await sweep;
        }
        expect(await expectOk(await rerun)).toEqual({ file_id: fileId });
      },
      { poolSize: 2, keyLookups: false },
    );
    await expectBytesOfRerun(fileId, orphanAt);
  });

  test('a re-run of POST /files under its Idempotency-Key after the dispute was accepted answers the file its first run stored', async () => {
    const dispute = await raise();
    const parts: MultipartPart[] = [{ name: 'purpose', value: 'dispute_evidence' }, { name: 'dispute_id', value: dispute.dispute_id }, filePart(png)];
    const key = `upload-rerun-closed-${engine}`;
    const first = await expectOk<Record<string, unknown>>(await upload('POST', '/files', parts, { headers: { 'idempotency-key': key } }));
    await h.db
      .updateTable('idempotency_keys')
      .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: '2000-01-01T00:00:00.000Z' })
      .where('idempotency_key', '=', key)
      .execute();
    await expectOk(await request('POST', `/disputes/accept/${dispute.dispute_id}`));
    expect(await expectOk<Record<string, unknown>>(await upload('POST', '/files', parts, { headers: { 'idempotency-key': key } }))).toEqual(first);
    const read = await apiRequest(h, 'GET', `/files/${String(first['file_id'])}`);
    expect(new Uint8Array(await read.arrayBuffer())).toEqual(png);
    await expectApiError(await upload('POST', '/files', parts), 'ERR_4062');
  });
});

forEachEngine('Disputes API, webhooks', (engine) => {
  test('dispute_opened, dispute_challenged and dispute_won reach the endpoint, signed', async () => {
    const database = await createTestDatabase(engine);
    const clock = new ManualClock('2025-01-01T00:00:00.000Z');
    const composition = await compose({
      databaseUrl: database.databaseUrl,
      sqliteFile: database.sqliteFile,
      poolSize: 4,
      clock,
      ids: cryptoIds,
      publicBaseUrl: 'http://127.0.0.1:8080',
      vaultKey: randomBytes(32),
      settings: DISPUTES_SETTINGS,
      secretsFile: memorySecretsFile(),
      bootstrap: { webhookUrl: 'https://merchant.example/hooks' },
    });
    try {
      const app = createApp({ ...composition.core, logger: createLogger('silent'), publicBaseUrl: 'http://127.0.0.1:8080', publicJsUrl: 'http://127.0.0.1:8081', rateLimits: undefined });
      const key = composition.boot.testSecretKey;
      const call = (method: string, path: string, body: unknown) =>
        app.request(path, { method, headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const payment = await expectOk<PaymentResponse>(await call('POST', '/payments', { amount: 5000, currency: 'INR', ...PAID }));
      const dispute = await expectOk<DisputeResponse>(await call('POST', '/simulator/disputes', { payment_id: payment.payment_id }));
      await expectOk(await call('POST', '/disputes/evidence', { dispute_id: dispute.dispute_id, uncategorized_text: 'Delivered on 2 January.' }));
      await expectOk(await call('POST', `/simulator/disputes/${dispute.dispute_id}/outcome`, { outcome: 'won' }));

      const received: WebhookRequest[] = [];
      const sender = { send: async (request: WebhookRequest) => (received.push(request), { status: 200, body: '' }) };
      const dispatcher = new WebhookDispatcher({ store: composition.store, clock }, defaultWebhookDeliveryConfig({ sender, random: () => 0 }));
      while ((await dispatcher.runOnce()) > 0);

      const disputeEvents = received
        .map((request) => ({ request, event: JSON.parse(request.body) as { event_type: string; content: { type: string; object: { dispute_id?: string } } } }))
        .filter(({ event }) => event.event_type.startsWith('dispute_'));
      expect(disputeEvents.map(({ event }) => event.event_type).sort()).toEqual(['dispute_challenged', 'dispute_opened', 'dispute_won']);
      for (const { request, event } of disputeEvents) {
        expect(request.url).toBe('https://merchant.example/hooks');
        expect(event.content).toMatchObject({ type: 'dispute_details', object: { dispute_id: dispute.dispute_id } });
        expect(() => verifyStandardWebhook(composition.boot.webhook.secret, request.headers, request.body, { nowSeconds: Math.floor(clock.now().getTime() / 1000) })).not.toThrow();
      }
    } finally {
      await composition.store.close();
      await database.drop();
    }
  });
});
