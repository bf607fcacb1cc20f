import type { Server } from 'node:http';

export declare const TOLERANCE_SECONDS: number;
export declare function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  options?: { nowSeconds?: number; toleranceSeconds?: number },
): any;
export declare function startReceiver(options: {
  secret: string;
  port?: number;
  host?: string;
  onEvent?: (event: any) => void;
}): Promise<Server>;
