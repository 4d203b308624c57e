import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { type ToolCallEvent, verifyToolCall } from '../../libs/verifier/src/index.js';

export interface ReceivedWebhook {
  path: string;
  receivedAt: number;
  headers: IncomingMessage['headers'];
  rawBody: Buffer;
  event: ToolCallEvent;
  /** The signatures that verified, per secret given to the handler (index into `secrets`). */
  verifiedWith: number[];
}

export type Reply = {
  status: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
  delayMs?: number;
  hang?: boolean;
};
export type Behaviour = (request: { path: string; attempt: number; event: ToolCallEvent }) => Reply;

/**
 * A real local handler: every request is verified with Toolgate's verifier library AND the
 * `standardwebhooks` package before it is recorded; a request that fails either is answered 401
 * and recorded in `rejected`.
 */
export class WebhookHandler {
  readonly received: ReceivedWebhook[] = [];
  readonly rejected: { path: string; reason: string }[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private server?: Server;
  private readonly openResponses = new Set<ServerResponse>();
  secrets: string[] = [];
  baseUrl = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  /** How the handler answers at `path` (default: 200 with a JSON echo of the arguments). */
  on(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  url(path: string): string {
    return this.baseUrl + path;
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  forEvent(eventId: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.event.event_id === eventId);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks);
    const path = req.url ?? '/';
    let event: ToolCallEvent;
    const verifiedWith: number[] = [];
    try {
      event = verifyToolCall(rawBody, req.headers, this.secrets);
      this.secrets.forEach((secret, index) => {
        try {
          new Webhook(secret).verify(rawBody.toString('utf8'), req.headers as Record<string, string>);
          verifiedWith.push(index);
        } catch {
          // this secret did not sign the request
        }
      });
      if (verifiedWith.length === 0) throw new Error('standardwebhooks refused every secret');
    } catch (error) {
      this.rejected.push({ path, reason: (error as Error).message });
      res.writeHead(401).end('bad signature');
      return;
    }
    const attempt = this.received.filter((r) => r.event.event_id === event.event_id).length + 1;
    this.received.push({ path, receivedAt: Date.now(), headers: req.headers, rawBody, event, verifiedWith });
    const behaviour: Behaviour =
      this.behaviours.get(path) ??
      (() => ({
        status: 200,
        body: JSON.stringify({ echo: event.arguments }),
        headers: { 'content-type': 'application/json' },
      }));
    const reply = behaviour({ path, attempt, event });
    if (reply.hang) {
      this.openResponses.add(res);
      res.on('close', () => this.openResponses.delete(res));
      return;
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
  }

  async stop(): Promise<void> {
    for (const res of this.openResponses) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
