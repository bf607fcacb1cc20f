/**
 * The frame of every test simulator page: plain HTML with no script and no external asset (CSP default-src 'none'),
 * whose buttons are form POSTs.
 */
import type { Context } from 'hono';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function securityHeaders(c: Context, returnUrl: string | null, jsOrigin: string): void {
  let formAction = "'self'";
  if (returnUrl !== null) formAction += ` ${new URL(returnUrl).origin}`;
  // The frame on js_url may show the page in an overlay; the challenge in the URL must not leak via Referer.
  c.header('Content-Security-Policy', `default-src 'none'; base-uri 'none'; form-action ${formAction}; frame-ancestors 'self' ${jsOrigin}`);
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Content-Type-Options', 'nosniff');
}

export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body><main>
<p><strong>Rail test simulator</strong>: no real payment is made.</p>
${body}
</main></body>
</html>
`;
}
