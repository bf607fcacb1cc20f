import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import {
  BalanceResponse,
  CollectIdParam,
  CollectionResponse,
  CreateCollectionRequest,
  RequestSettlementRequest,
  SettlementResponse,
} from '../../../../../protocol/api/collect';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { toCollectionResponse, toSettlementResponse } from '../../../core/collect/collect-view';
import { createCollection } from '../../../core/collect/create-collection';
import { readBalance } from '../../../core/collect/read-balance';
import { requestSettlement } from '../../../core/collect/request-settlement';
import { retrieveCollection } from '../../../core/collect/retrieve-collection';
import { retrieveSettlement } from '../../../core/collect/retrieve-settlement';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY, jsonContent } from '../../openapi';

const COLLECT_ERROR_RESPONSES = {
  ...ERROR_RESPONSES,
  404: { ...ERROR_RESPONSES[404], description: 'Not found (ERR_4071 collection, ERR_4072 settlement)' },
  422: { ...ERROR_RESPONSES[422], description: 'Unprocessable (ERR_3010 live, ERR_4073 over the balance, ERR_4074 / ERR_4075 wallet)' },
} as const;

/** The Collect API (spec paths): collections, the balance, settlements to the saved USDT wallet. Secret key only. */
export function registerCollectRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/collect/collections',
      tags: ['Collect'],
      summary: 'Create a collection',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, ...jsonContent(CreateCollectionRequest) } },
      responses: { 200: { description: 'The collection, pending, with what the payer does', ...jsonContent(CollectionResponse) }, ...COLLECT_ERROR_RESPONSES },
    }),
    async (c) => c.json(toCollectionResponse(await createCollection(coreDeps(c, deps), c.get('auth'), c.req.valid('json'))), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/collect/collections/{collection_id}',
      tags: ['Collect'],
      summary: 'Retrieve a collection',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: z.object({ get collection_id() { return CollectIdParam.unwrap(); } }) },
      responses: { 200: { description: 'The collection', ...jsonContent(CollectionResponse) }, ...COLLECT_ERROR_RESPONSES },
    }),
    async (c) => c.json(toCollectionResponse(await retrieveCollection(coreDeps(c, deps), c.get('auth'), c.req.valid('param').collection_id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/collect/balance',
      tags: ['Collect'],
      summary: 'Read the balance: available, pending and held, per corridor and in USDT',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery },
      responses: { 200: { description: 'The balance', ...jsonContent(BalanceResponse) }, ...COLLECT_ERROR_RESPONSES },
    }),
    async (c) => c.json(await readBalance(coreDeps(c, deps), c.get('auth')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/collect/settlements',
      tags: ['Collect'],
      summary: 'Request a settlement to the saved USDT wallet',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, ...jsonContent(RequestSettlementRequest) } },
      responses: { 200: { description: 'The settlement, processing', ...jsonContent(SettlementResponse) }, ...COLLECT_ERROR_RESPONSES },
    }),
    async (c) => c.json(toSettlementResponse(await requestSettlement(coreDeps(c, deps), c.get('auth'), c.req.valid('json'))), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/collect/settlements/{settlement_id}',
      tags: ['Collect'],
      summary: 'Retrieve a settlement',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: z.object({ get settlement_id() { return CollectIdParam.unwrap(); } }) },
      responses: { 200: { description: 'The settlement, with its on-chain reference once completed', ...jsonContent(SettlementResponse) }, ...COLLECT_ERROR_RESPONSES },
    }),
    async (c) => c.json(toSettlementResponse(await retrieveSettlement(coreDeps(c, deps), c.get('auth'), c.req.valid('param').settlement_id)), 200),
  );
}
