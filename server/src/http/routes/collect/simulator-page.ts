/**
 * TEST SIMULATOR: the payer of a collection. `GET /simulator/collect/{collection_id}?challenge=...` shows the
 * collection with Pay and Fail buttons; the POST answers it (docs/simulator.md, "Collect API"). The payer sees what a
 * payer is shown: the merchant's name, the amount and how to pay; nothing that names the merchant's account.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { currencyExponent, minorToDecimal } from '../../../../../protocol/currency';
import { answerCollectionPrompt, findPromptedCollection } from '../../../core/collect/answer-collection-prompt';
import type { CoreDeps } from '../../../core/shared/deps';
import { ApiError } from '../../../core/shared/errors';
import { type AppEnv, coreDeps } from '../../env';
import { escapeHtml, layout, securityHeaders } from '../simulator/page';

const TITLE = 'Test collection payer';

export function registerCollectSimulatorPage(app: OpenAPIHono<AppEnv>, deps: CoreDeps, options: { jsOrigin: string }): void {
  app.get('/simulator/collect/:collection_id', async (c) => {
    const challenge = c.req.query('challenge') ?? '';
    const { collection, merchantName } = await findPromptedCollection(coreDeps(c, deps), c.req.param('collection_id'), challenge);
    const amount = `${minorToDecimal(collection.amount, currencyExponent(collection.currency))} ${collection.currency}`;
    const payee = merchantName === null ? '' : ` to <strong>${escapeHtml(merchantName)}</strong>`;
    const how =
      collection.instructions.type === 'mobile_money_prompt'
        ? `Mobile money prompt to <code>${escapeHtml(collection.instructions.phone_number)}</code>`
        : `Bank transfer with the reference <code>${escapeHtml(collection.instructions.reference)}</code>`;
    const form = `<form method="post" action="/simulator/collect/${encodeURIComponent(collection.collectionId)}">
<input type="hidden" name="challenge" value="${escapeHtml(challenge)}">
<button type="submit" name="decision" value="pay">Pay</button>
<button type="submit" name="decision" value="fail">Fail</button>
</form>`;
    securityHeaders(c, null, options.jsOrigin);
    return c.html(layout(TITLE, `<h1>${TITLE}</h1>\n<p>Payment${payee}: ${escapeHtml(amount)}</p>\n<p>${how}</p>\n${form}`), 200);
  });

  app.post('/simulator/collect/:collection_id', async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const decision = form['decision'];
    if (decision !== 'pay' && decision !== 'fail') throw new ApiError('ERR_2003', 'decision must be pay or fail.', { fieldName: 'decision' });
    const challenge = typeof form['challenge'] === 'string' ? form['challenge'] : '';
    const collection = await answerCollectionPrompt(coreDeps(c, deps), c.req.param('collection_id'), challenge, decision);
    securityHeaders(c, null, options.jsOrigin);
    return c.html(layout(TITLE, `<h1>${TITLE}</h1>\n<p>The payment is now <strong>${escapeHtml(collection.status)}</strong>. You can close this window.</p>`), 200);
  });
}
