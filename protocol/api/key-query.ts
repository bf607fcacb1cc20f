import { z } from 'zod';
import { lazySchema } from '../lazy-schema';

/**
 * `key`: the publishable key, on the GETs a browser makes with one (Stripe.js's precedent). A custom header would make
 * such a GET a CORS non-simple request, and every client_secret makes a new URL, so its preflight is never cached:
 * a whole extra round trip per mount. Only a publishable key is accepted here (a secret key in a URL is refused,
 * ERR_1002); an api-key or Authorization header wins over it. Declared only on the GETs that take a publishable key,
 * so every other route refuses it as an unknown parameter (ERR_2004).
 */
export const PublishableKeyQueryParam = lazySchema(() =>
  z
    .string()
    .max(256)
    .optional()
    .meta({
      description:
        'The publishable key, for browser GETs that send no api-key header (no CORS preflight). A secret key is refused (ERR_1002); a key in a header wins.',
    }));
