/**
 * The HTTP side of a delivery behind a narrow interface, so the dispatcher is tested without a network and
 * without sleeping. The real sender uses fetch with a timeout, never follows redirects (a 3xx is a failed
 * attempt) and reads at most RESPONSE_EXCERPT_CHARS of the answer, for at most RESPONSE_BODY_WAIT_MS: what counts is
 * the status received within the timeout (as Stripe counts a 2xx), not the body after it.
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

/**
 * How long the body of an answer is read once its status has come. A receiver that answers 2xx and then stalls its
 * body has accepted the event: waiting out the timeout would record a timeout and send it again.
 */
export const RESPONSE_BODY_WAIT_MS = 1000;

/**
 * The start of the answer's body: what came within `waitMs` (and before the request's timeout), up to
 * RESPONSE_EXCERPT_CHARS. The body is cancelled afterwards, which closes the connection of an answer not read to its
 * end, so a stalled body never holds a socket.
 */
async function readExcerpt(response: Response, waitMs: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, waitMs, undefined);
  });
  try {
    while (text.length < RESPONSE_EXCERPT_CHARS) {
      const chunk = await Promise.race([reader.read(), waited]);
      if (chunk === undefined || chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } catch {
    // The body broke off, or the request's timeout fired while it was read: the status had come; keep what was read.
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, RESPONSE_EXCERPT_CHARS);
}

/** A sender over fetch with AbortSignal.timeout; `bodyWaitMs` bounds the reading of an answer's body (tests shorten it). */
export function createFetchWebhookSender(options: { bodyWaitMs?: number } = {}): WebhookSender {
  const bodyWaitMs = options.bodyWaitMs ?? RESPONSE_BODY_WAIT_MS;
  return {
    async send(request) {
      const response = await fetch(request.url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(request.timeoutMs),
      });
      return { status: response.status, body: await readExcerpt(response, bodyWaitMs) };
    },
  };
}

/** The production sender. */
export const fetchWebhookSender: WebhookSender = createFetchWebhookSender();

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
