import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';

export interface ReceivedEvent {
  receivedAt: number;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  body: { type: string; call: Record<string, unknown> };
}

/** A host's event endpoint: records every POST as it came (raw bytes and headers), answers as told per arrival. */
export class EventReceiver {
  readonly received: ReceivedEvent[] = [];
  private server?: Server;
  baseUrl = '';
  /** How the n-th arrival (1-based) of one webhook-id is answered; 204 by default. */
  answer: (arrival: number) => { status: number; headers?: Record<string, string>; body?: string } = () => ({
    status: 204,
  });

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks);
        const event: ReceivedEvent = {
          receivedAt: Date.now(),
          headers: req.headers,
          rawBody,
          body: JSON.parse(rawBody.toString('utf8')) as ReceivedEvent['body'],
        };
        this.received.push(event);
        const { status, headers, body } = this.answer(this.of(String(req.headers['webhook-id'])).length);
        res.writeHead(status, headers).end(body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  url(path = '/events'): string {
    return this.baseUrl + path;
  }

  /** The arrivals of one event (by webhook-id). */
  of(webhookId: string): ReceivedEvent[] {
    return this.received.filter((r) => r.headers['webhook-id'] === webhookId);
  }

  /** The arrivals of the event of one call. */
  forCall(callId: string): ReceivedEvent[] {
    return this.received.filter((r) => r.body.call.call_id === callId);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
