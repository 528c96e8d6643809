/** Small pieces of plain node:http: JSON answers, errors of the HTTP layer, bounded request bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Every JSON-RPC message of this server fits easily; anything larger is refused with 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A body over the limit is still read (and thrown away) up to this size before the 413 goes out:
 * answering while the client is still sending makes many clients see a reset instead of the 413.
 */
const DRAIN_LIMIT_BYTES = 8 * MAX_BODY_BYTES;

/** An answer of the HTTP layer itself (not of a tool): a status and `{ error: { code, message } }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** A JSON answer already serialized (one whose ids JSON.stringify could not write exactly). */
export function sendJsonText(res: ServerResponse, status: number, json: string, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = `${json}\n`;
  // Answers carry what a token may read, so never cached; a caller that says otherwise (the
  // public metadata) is heard.
  res.writeHead(status, { 'cache-control': 'no-store', ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

export function sendError(res: ServerResponse, err: HttpError): void {
  sendJson(res, err.status, { error: { code: err.code, message: err.message } }, err.headers);
}

function tooLarge(): HttpError {
  // The connection is closed after the answer: what is left of the body is not worth reading.
  return new HttpError(413, 'PAYLOAD_TOO_LARGE', `the request body is larger than ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
}

/** Reads the whole body as UTF-8 text; 413 over the limit. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > DRAIN_LIMIT_BYTES) {
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else if (size > DRAIN_LIMIT_BYTES) settle(() => reject(tooLarge()));
    });
    req.on('end', () => settle(() => (size > MAX_BODY_BYTES ? reject(tooLarge()) : resolve(Buffer.concat(chunks).toString('utf8')))));
    req.on('error', (err) => settle(() => reject(err)));
    req.on('close', () => settle(() => reject(new Error('the client closed the connection before the body ended'))));
  });
}
