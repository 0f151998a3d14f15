import type { Server } from 'node:http';

/** One answer as a server wrote it: header names in lower case, the body's bytes still encoded. */
export interface WrittenAnswer {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function captureAnswers(server: Server, record: (answer: WrittenAnswer) => void): void;
