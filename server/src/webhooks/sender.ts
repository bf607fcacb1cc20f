/**
 * The HTTP side of a delivery behind a narrow interface, so the dispatcher is tested without a network and
 * without sleeping. The real sender uses fetch with a timeout, never follows redirects (a 3xx is a failed
 * attempt) and reads at most RESPONSE_EXCERPT_CHARS of the answer.
 */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** An HTTP answer (any status). A request that got no answer rejects instead (network error, timeout). */
export interface WebhookResponse {
  status: number;
  /** The start of the answer body (at most RESPONSE_EXCERPT_CHARS characters). */
  body: string;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/** Characters of an answer's body kept with an attempt. */
export const RESPONSE_EXCERPT_CHARS = 1024;

async function readExcerpt(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < RESPONSE_EXCERPT_CHARS) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, RESPONSE_EXCERPT_CHARS);
}

/** The production sender: fetch with AbortSignal.timeout. */
export const fetchWebhookSender: WebhookSender = {
  async send(request) {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    return { status: response.status, body: await readExcerpt(response) };
  },
};

/** A short, secret-free description of why a request got no answer. */
export function describeSendError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timeout';
    const cause = (error as { cause?: unknown }).cause;
    const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
    if (typeof code === 'string') return code;
    return error.message.slice(0, 200);
  }
  return 'request failed';
}
