/**
 * A webhook endpoint for the tests, on 127.0.0.1: it verifies every message's signature with the
 * Standard Webhooks reference library (not our own code), records every attempt, and answers as
 * the test scripts it: 2xx, a failure status, or no answer at all.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { eventually } from './eventually.js';

export interface Attempt {
  /** The webhook-id header: the event's id. */
  id: string;
  /** Which attempt at this id this is, from 1. */
  n: number;
  at: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** Whether the signature verified with the secret the receiver was given. */
  verified: boolean;
  /** What the receiver answered. */
  answer: Answer;
}

/** What to answer an attempt: an HTTP status, or 'hang' for no answer until the receiver closes. */
export type Answer = number | 'hang';

export class WebhookReceiver {
  readonly attempts: Attempt[] = [];
  /** The signing secret to verify with (set once the webhook is created). */
  secret = '';
  answer: (attempt: Attempt) => Answer = () => 204;
  private readonly server;
  private readonly hanging = new Set<ServerResponse>();

  private constructor() {
    this.server = createServer((request, response) => {
      let text = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (text += chunk));
      request.on('end', () => this.receive(request, response, text));
    });
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/circulation`;
  }

  private receive(request: IncomingMessage, response: ServerResponse, text: string): void {
    const id = String(request.headers['webhook-id']);
    let verified = true;
    try {
      new Webhook(this.secret).verify(text, request.headers as Record<string, string>);
    } catch {
      verified = false;
    }
    const attempt: Attempt = {
      id,
      n: this.attempts.filter((a) => a.id === id).length + 1,
      at: Date.now(),
      path: request.url ?? '',
      headers: request.headers,
      body: JSON.parse(text),
      verified,
      answer: 401,
    };
    if (verified) attempt.answer = this.answer(attempt);
    this.attempts.push(attempt);
    const answer = attempt.answer;
    if (answer === 'hang') {
      this.hanging.add(response);
      return;
    }
    response.statusCode = answer;
    response.end();
  }

  /** The attempts answered 2xx, in the order they came. */
  delivered(): Attempt[] {
    return this.attempts.filter((a) => typeof a.answer === 'number' && a.answer >= 200 && a.answer < 300);
  }

  /** Waits until `done` holds, polling every 20 ms, for at most `timeoutMs`. */
  async until(done: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    await eventually(done, () => `${what}; received: ${this.summary()}`, timeoutMs);
  }

  summary(): string {
    return JSON.stringify(this.attempts.map((a) => [a.id, a.n, a.verified]));
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
