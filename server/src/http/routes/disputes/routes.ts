import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import {
  AttachEvidenceForm,
  DeletedEvidenceResponse,
  DeletedFileResponse,
  DeleteEvidenceRequest,
  DisputeAggregateQuery,
  DisputeAggregateResponse,
  DisputeFiltersResponse,
  DisputeIdParam,
  DisputeListResponse,
  DisputeResponse,
  EvidenceBlock,
  FileIdParam,
  FileUploadResponse,
  ListDisputesQuery,
  RetrieveDisputeQuery,
  SubmitEvidenceRequest,
  UploadFileForm,
} from '../../../../../protocol/api/disputes';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { lazySchema } from '../../../../../protocol/lazy-schema';
import { acceptDispute } from '../../../core/disputes/accept-dispute';
import { attachEvidence } from '../../../core/disputes/attach-evidence';
import { deleteEvidence } from '../../../core/disputes/delete-evidence';
import { deleteFile } from '../../../core/disputes/delete-file';
import { aggregateDisputes } from '../../../core/disputes/dispute-aggregate';
import { disputeFilters } from '../../../core/disputes/dispute-filters';
import { toDisputeResponse } from '../../../core/disputes/dispute-view';
import { listDisputes } from '../../../core/disputes/list-disputes';
import { retrieveDispute } from '../../../core/disputes/retrieve-dispute';
import { retrieveEvidence } from '../../../core/disputes/retrieve-evidence';
import { retrieveFile } from '../../../core/disputes/retrieve-file';
import { submitEvidence } from '../../../core/disputes/submit-evidence';
import { uploadFile } from '../../../core/disputes/upload-file';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody, refuseBodyFields } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

const ERROR_CONTENT = ERROR_RESPONSES[400].content;
import { readUploadForm, UPLOAD_BODY_LIMIT_BYTES, uploadBodyLimit } from './multipart';

const DisputePath = z.object({ get dispute_id() { return DisputeIdParam.unwrap(); } });
const FilePath = z.object({ get file_id() { return FileIdParam.unwrap(); } });
const disputeJson = { content: { 'application/json': { schema: DisputeResponse } } } as const;
const DISPUTE_ERROR_RESPONSES = {
  ...ERROR_RESPONSES,
  400: { ...ERROR_RESPONSES[400], description: 'Invalid request (ERR_2xxx; ERR_4062 dispute status; ERR_4063 File content type not found)' },
  404: { ...ERROR_RESPONSES[404], description: 'Not found (ERR_4060 dispute, ERR_4061 file, ERR_4065 evidence, ERR_2006)' },
  413: { description: `Upload larger than its limit (ERR_2009; ${UPLOAD_BODY_LIMIT_BYTES} bytes of body)`, content: ERROR_CONTENT },
  415: { description: 'Not multipart/form-data (ERR_2008)', content: ERROR_CONTENT },
} as const;
const MULTIPART_NOTE = 'multipart/form-data, streamed: one part named file (PDF, PNG, JPEG, GIF, TIFF or WebP, detected from its bytes)';

/**
 * The disputes and files endpoints (Hyperswitch v1 paths; api-conventions §3), all secret key. The multipart routes
 * read their body themselves (multipart.ts), so their form is documented here but not validated by the router.
 */
export function registerDisputeRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  const secret = authenticate(deps, ['secret']);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/disputes/accept/{dispute_id}',
      tags: ['Disputes'],
      summary: 'Accept a dispute (final)',
      security: SECURITY,
      middleware: [secret, refuseBodyFields] as const,
      request: { query: NoQuery, params: DisputePath },
      responses: { 200: { description: 'The dispute, dispute_accepted', ...disputeJson }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => c.json(toDisputeResponse(await acceptDispute(coreDeps(c, deps), c.get('auth'), c.req.valid('param').dispute_id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/disputes/aggregate',
      tags: ['Disputes'],
      summary: 'Dispute totals per status',
      security: SECURITY,
      middleware: [secret] as const,
      request: { query: DisputeAggregateQuery },
      responses: { 200: { description: 'Counts per status', content: { 'application/json': { schema: DisputeAggregateResponse } } }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => c.json({ status_with_count: await aggregateDisputes(coreDeps(c, deps), c.get('auth'), c.req.valid('query')) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/disputes/evidence',
      tags: ['Disputes'],
      summary: 'Submit evidence',
      security: SECURITY,
      middleware: [secret, parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: SubmitEvidenceRequest } } } },
      responses: { 200: { description: 'The dispute, dispute_challenged', ...disputeJson }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => c.json(toDisputeResponse(await submitEvidence(coreDeps(c, deps), c.get('auth'), c.req.valid('json'))), 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/disputes/evidence',
      tags: ['Disputes'],
      summary: 'Attach evidence (multipart: dispute_id, evidence_type, file)',
      description: MULTIPART_NOTE,
      security: SECURITY,
      middleware: [uploadBodyLimit, secret] as const,
      request: { query: NoQuery },
      responses: { 200: { description: 'The new file', content: { 'application/json': { schema: FileUploadResponse } } }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => {
      const auth = c.get('auth');
      const form = await readUploadForm(c, deps, auth, AttachEvidenceForm);
      const file = await attachEvidence(coreDeps(c, deps), auth, { disputeId: form.fields.dispute_id, evidenceType: form.fields.evidence_type, file: form.file });
      return c.json({ file_id: file.fileId }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/disputes/evidence',
      tags: ['Disputes'],
      summary: 'Delete evidence (before submission)',
      security: SECURITY,
      middleware: [secret, parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: DeleteEvidenceRequest } } } },
      responses: { 200: { description: 'Detached', content: { 'application/json': { schema: DeletedEvidenceResponse } } }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const dispute = await deleteEvidence(coreDeps(c, deps), c.get('auth'), body);
      return c.json({ dispute_id: dispute.disputeId, evidence_type: body.evidence_type, deleted: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/disputes/evidence/{dispute_id}',
      tags: ['Disputes'],
      summary: 'Retrieve evidence',
      security: SECURITY,
      middleware: [secret] as const,
      request: { query: NoQuery, params: DisputePath },
      responses: { 200: { description: 'The evidence blocks', content: { 'application/json': { schema: lazySchema(() => z.array(EvidenceBlock)) } } }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => c.json(await retrieveEvidence(coreDeps(c, deps), c.get('auth'), c.req.valid('param').dispute_id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/disputes/filter',
      tags: ['Disputes'],
      summary: 'List filters (values present)',
      security: SECURITY,
      middleware: [secret] as const,
      request: { query: NoQuery },
      responses: { 200: { description: 'Facet values', content: { 'application/json': { schema: DisputeFiltersResponse } } }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => {
      const facets = await disputeFilters(coreDeps(c, deps), c.get('auth'));
      return c.json(
        { currency: facets.currencies, dispute_status: facets.statuses, dispute_stage: facets.stages, merchant_connector_id: facets.merchantConnectorIds },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/disputes/list',
      tags: ['Disputes'],
      summary: 'List disputes',
      security: SECURITY,
      middleware: [secret] as const,
      request: { query: ListDisputesQuery },
      responses: { 200: { description: 'Disputes, newest first', content: { 'application/json': { schema: DisputeListResponse } } }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => c.json((await listDisputes(coreDeps(c, deps), c.get('auth'), c.req.valid('query'))).map(toDisputeResponse), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/disputes/{dispute_id}',
      tags: ['Disputes'],
      summary: 'Retrieve a dispute',
      security: SECURITY,
      middleware: [secret] as const,
      request: { query: RetrieveDisputeQuery, params: DisputePath },
      responses: { 200: { description: 'The dispute', ...disputeJson }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => c.json(toDisputeResponse(await retrieveDispute(coreDeps(c, deps), c.get('auth'), c.req.valid('param').dispute_id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/files',
      tags: ['Files'],
      summary: 'Upload a file (multipart: purpose=dispute_evidence, dispute_id, file)',
      description: MULTIPART_NOTE,
      security: SECURITY,
      middleware: [uploadBodyLimit, secret] as const,
      request: { query: NoQuery },
      responses: { 200: { description: 'The new file', content: { 'application/json': { schema: FileUploadResponse } } }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => {
      const auth = c.get('auth');
      const form = await readUploadForm(c, deps, auth, UploadFileForm);
      const file = await uploadFile(coreDeps(c, deps), auth, { purpose: form.fields.purpose, disputeId: form.fields.dispute_id, file: form.file });
      return c.json({ file_id: file.fileId }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/files/{file_id}',
      tags: ['Files'],
      summary: 'Retrieve a file (its bytes)',
      security: SECURITY,
      middleware: [secret] as const,
      request: { query: NoQuery, params: FilePath },
      responses: { 200: { description: 'The bytes, with the content type detected at upload' }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => {
      const { file, bytes } = await retrieveFile(coreDeps(c, deps), c.get('auth'), c.req.valid('param').file_id);
      return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
        'content-type': file.contentType,
        'content-disposition': 'attachment',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      });
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/files/{file_id}',
      tags: ['Files'],
      summary: 'Delete a file (a submitted one stays with its dispute)',
      security: SECURITY,
      middleware: [secret] as const,
      request: { query: NoQuery, params: FilePath },
      responses: { 200: { description: 'Deleted', content: { 'application/json': { schema: DeletedFileResponse } } }, ...DISPUTE_ERROR_RESPONSES },
    }),
    async (c) => {
      const fileId = c.req.valid('param').file_id;
      const { keptAsEvidence, bytesLeft } = await deleteFile(coreDeps(c, deps), c.get('auth'), fileId);
      if (bytesLeft !== undefined) c.get('logger').warn({ err: bytesLeft, file_id: fileId }, 'a deleted file kept its bytes on disk; the orphan sweep removes them');
      return c.json({ file_id: fileId, deleted: true as const, kept_as_evidence: keptAsEvidence }, 200);
    },
  );
}
