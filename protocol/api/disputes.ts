/**
 * REST shapes of the disputes and files endpoints (spec "Disputes and files [disputes]", the Dispute and File
 * resources; Hyperswitch v1 paths and names) and of the test simulator's dispute calls. Request objects and queries
 * are strict (api-conventions §4). Values the spec leaves open are rows in docs/open-points.md ("Disputes and files").
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { Currency } from './payments';
import { CURRENCIES } from '../currency';

export const DISPUTE_LIMITS = {
  /** GET /disputes/list: page size when limit is omitted, and the largest page (as the other lists). */
  listDefaultLimit: 10,
  listMaxLimit: 100,
  evidenceTextMax: 20_000,
  reasonMax: 255,
} as const;

export const FILE_LIMITS = {
  /** Largest file accepted by POST /files and PUT /disputes/evidence (10 MiB; docs/open-points.md). */
  maxFileBytes: 10 * 1024 * 1024,
  /** Room for the form fields and part headers around the file in a multipart body. */
  multipartOverheadBytes: 64 * 1024,
  fileNameMax: 255,
  /**
   * Files a dispute may hold, deleted-but-submitted ones included (ERR_4067 beyond; docs/open-points.md): two for
   * each of the ten file evidence types, room for a replacement of each before the unused one is deleted.
   */
  maxFilesPerDispute: 20,
} as const;

export const DISPUTE_STAGES = ['pre_dispute', 'dispute', 'pre_arbitration', 'arbitration', 'dispute_reversal'] as const;
export const DisputeStage = lazySchema(() => z.enum(DISPUTE_STAGES));
export type DisputeStage = z.infer<typeof DisputeStage>;

export const DISPUTE_STATUSES = [
  'dispute_opened',
  'dispute_expired',
  'dispute_accepted',
  'dispute_cancelled',
  'dispute_challenged',
  'dispute_won',
  'dispute_lost',
] as const;
export const DisputeStatus = lazySchema(() => z.enum(DISPUTE_STATUSES));
export type DisputeStatus = z.infer<typeof DisputeStatus>;

/** Evidence fields that take a file_id (spec "Dispute": those marked file); also the evidence_type values. */
export const EVIDENCE_TYPES = [
  'cancellation_policy',
  'customer_communication',
  'customer_signature',
  'receipt',
  'refund_policy',
  'service_documentation',
  'shipping_documentation',
  'invoice_showing_distinct_transactions',
  'recurring_transaction_agreement',
  'uncategorized_file',
] as const;
export const EvidenceType = lazySchema(() => z.enum(EVIDENCE_TYPES));
export type EvidenceType = z.infer<typeof EvidenceType>;

/** Evidence fields that take text. */
export const EVIDENCE_TEXT_FIELDS = [
  'access_activity_log',
  'billing_address',
  'cancellation_policy_disclosure',
  'cancellation_rebuttal',
  'customer_email_address',
  'customer_name',
  'customer_purchase_ip',
  'product_description',
  'refund_policy_disclosure',
  'refund_refusal_explanation',
  'service_date',
  'shipping_address',
  'shipping_carrier',
  'shipping_date',
  'shipping_tracking_number',
  'uncategorized_text',
] as const;
export type EvidenceTextField = (typeof EVIDENCE_TEXT_FIELDS)[number];
export type EvidenceField = EvidenceType | EvidenceTextField;

export const DISPUTE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const DisputeIdParam = lazySchema(() => z.string().min(1).max(64).regex(DISPUTE_ID_PATTERN, 'dispute_id may contain only A-Z, a-z, 0-9, _ and -'));
export const FileIdParam = lazySchema(() => z.string().min(1).max(64).regex(DISPUTE_ID_PATTERN, 'file_id may contain only A-Z, a-z, 0-9, _ and -'));

const EvidenceText = lazySchema(() => z.string().max(DISPUTE_LIMITS.evidenceTextMax).nullable().optional());
const EvidenceFile = lazySchema(() => FileIdParam.unwrap().nullable().optional());

/** POST /disputes/evidence body: dispute_id plus any evidence fields (null clears a field). */
export const SubmitEvidenceRequest = lazySchema(() =>
  z
    .strictObject({
      dispute_id: DisputeIdParam.unwrap(),
      ...Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((field) => [field, EvidenceText.unwrap()])),
      ...Object.fromEntries(EVIDENCE_TYPES.map((field) => [field, EvidenceFile.unwrap()])),
    } as { dispute_id: ReturnType<typeof DisputeIdParam.unwrap> } & Record<EvidenceTextField, ReturnType<typeof EvidenceText.unwrap>> & Record<EvidenceType, ReturnType<typeof EvidenceFile.unwrap>>)
    .meta({ id: 'SubmitEvidenceRequest' }));
export type SubmitEvidenceRequest = z.infer<typeof SubmitEvidenceRequest>;

/** DELETE /disputes/evidence body. */
export const DeleteEvidenceRequest = lazySchema(() =>
  z
    .strictObject({ dispute_id: DisputeIdParam.unwrap(), evidence_type: EvidenceType.unwrap() })
    .meta({ id: 'DeleteEvidenceRequest' }));
export type DeleteEvidenceRequest = z.infer<typeof DeleteEvidenceRequest>;

const DateTime = lazySchema(() => z.iso.datetime({ offset: true }));

/** A comma-separated query list of enum values (`dispute_status=dispute_opened,dispute_won`). */
function commaList<T extends readonly [string, ...string[]]>(values: T) {
  const accepted = new Set<string>(values);
  return z
    .string()
    .max(2000)
    .transform((text, ctx) => {
      const items = text.split(',').map((item) => item.trim()).filter((item) => item !== '');
      if (items.length === 0 || items.some((item) => !accepted.has(item))) {
        ctx.addIssue({ code: 'custom', message: 'a comma-separated list of accepted values (see /openapi.json)' });
        return z.NEVER;
      }
      return items as T[number][];
    });
}

/** GET /disputes/list query (spec: dispute_id, payment_id, limit, offset, profile_id, ...; Hyperswitch DisputeListGetConstraints). */
export const ListDisputesQuery = z
  .strictObject({
    get dispute_id() { return DisputeIdParam.unwrap().optional(); },
    get payment_id() { return z.string().min(1).max(64).optional(); },
    get limit() { return z.coerce.number().int().min(1).max(DISPUTE_LIMITS.listMaxLimit).optional(); },
    get offset() { return z.coerce.number().int().min(0).max(2_147_483_647).optional(); },
    get profile_id() { return z.string().min(1).max(64).optional(); },
    get dispute_status() { return commaList(DISPUTE_STATUSES).optional(); },
    get dispute_stage() { return commaList(DISPUTE_STAGES).optional(); },
    get reason() { return z.string().min(1).max(DISPUTE_LIMITS.reasonMax).optional(); },
    get currency() { return commaList(CURRENCIES as readonly [string, ...string[]]).optional(); },
    get merchant_connector_id() { return z.string().min(1).max(255).optional(); },
    get start_time() { return DateTime.unwrap().optional(); },
    get end_time() { return DateTime.unwrap().optional(); },
  })
  .meta({ id: 'ListDisputesQuery' });
export type ListDisputesQuery = z.infer<typeof ListDisputesQuery>;

/** GET /disputes/aggregate query. */
export const DisputeAggregateQuery = z
  .strictObject({
    get start_time() { return DateTime.unwrap(); },
    get end_time() { return DateTime.unwrap().optional(); },
  })
  .meta({ id: 'DisputeAggregateQuery' });
export type DisputeAggregateQuery = z.infer<typeof DisputeAggregateQuery>;

/** GET /disputes/{dispute_id} query. */
export const RetrieveDisputeQuery = z.strictObject({ get force_sync() { return z.enum(['true', 'false']).optional(); } });

/** The dispute object (spec "Dispute" fields, plus Hyperswitch's connector fields and profile_id). */
export const DisputeResponse = lazySchema(() =>
  z
    .object({
      dispute_id: z.string(),
      payment_id: z.string(),
      /** Minor units, as a string (spec). */
      amount: z.string(),
      currency: Currency.unwrap(),
      dispute_stage: DisputeStage.unwrap(),
      dispute_status: DisputeStatus.unwrap(),
      connector: z.string().nullable(),
      connector_reason: z.string().nullable(),
      challenge_required_by: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      evidence_submitted_at: z.string().nullable(),
      profile_id: z.string(),
      merchant_connector_id: z.string().nullable(),
      is_already_refunded: z.boolean(),
    })
    .meta({ id: 'Dispute' }));
export type DisputeResponse = z.infer<typeof DisputeResponse>;

export const DisputeListResponse = lazySchema(() => z.array(DisputeResponse.unwrap()).meta({ id: 'DisputeList' }));

export const DisputeAggregateResponse = lazySchema(() =>
  z
    .object({ status_with_count: z.record(z.string(), z.int()) })
    .meta({ id: 'DisputeAggregate' }));

export const DisputeFiltersResponse = lazySchema(() =>
  z
    .object({
      currency: z.array(Currency.unwrap()),
      dispute_status: z.array(DisputeStatus.unwrap()),
      dispute_stage: z.array(DisputeStage.unwrap()),
      merchant_connector_id: z.array(z.string()),
    })
    .meta({ id: 'DisputeFilters' }));

/** One block of GET /disputes/evidence/{dispute_id} (Hyperswitch DisputeEvidenceBlock). */
export const EvidenceBlock = lazySchema(() =>
  z
    .object({
      evidence_type: EvidenceType.unwrap(),
      file_metadata_response: z.object({
        file_id: z.string(),
        file_name: z.string().nullable(),
        file_size: z.int(),
        file_type: z.string(),
        available: z.boolean(),
      }),
    })
    .meta({ id: 'DisputeEvidenceBlock' }));
export type EvidenceBlock = z.infer<typeof EvidenceBlock>;

export const FileUploadResponse = lazySchema(() => z.object({ file_id: z.string() }).meta({ id: 'FileUpload' }));

export const DeletedEvidenceResponse = lazySchema(() =>
  z
    .object({ dispute_id: z.string(), evidence_type: EvidenceType.unwrap(), deleted: z.literal(true) })
    .meta({ id: 'DeletedEvidence' }));

export const DeletedFileResponse = lazySchema(() =>
  z
    .object({ file_id: z.string(), deleted: z.literal(true), kept_as_evidence: z.boolean() })
    .meta({ id: 'DeletedFile' }));

/** Upload purposes (spec: only dispute_evidence is accepted). */
export const FILE_PURPOSES = ['dispute_evidence'] as const;

/** POST /files form fields (beside the file part). */
export const UploadFileForm = lazySchema(() =>
  z.strictObject({ purpose: z.enum(FILE_PURPOSES), dispute_id: DisputeIdParam.unwrap() }));

/** PUT /disputes/evidence form fields (beside the file part). */
export const AttachEvidenceForm = lazySchema(() =>
  z.strictObject({ dispute_id: DisputeIdParam.unwrap(), evidence_type: EvidenceType.unwrap() }));

/** Test simulator: POST /simulator/disputes raises a dispute on a succeeded payment. */
export const SimulateDisputeRequest = lazySchema(() =>
  z
    .strictObject({
      payment_id: z.string().min(1).max(64),
      reason: z.string().min(1).max(DISPUTE_LIMITS.reasonMax).optional(),
      /** Part of the captured amount disputed (minor units); the whole amount when omitted. */
      amount: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    })
    .meta({ id: 'SimulateDisputeRequest' }));
export type SimulateDisputeRequest = z.infer<typeof SimulateDisputeRequest>;

/** Test simulator: POST /simulator/disputes/{dispute_id}/outcome decides a dispute. */
export const SimulateDisputeOutcomeRequest = lazySchema(() =>
  z
    .strictObject({ outcome: z.enum(['won', 'lost']) })
    .meta({ id: 'SimulateDisputeOutcomeRequest' }));
export type SimulateDisputeOutcomeRequest = z.infer<typeof SimulateDisputeOutcomeRequest>;
