/**
 * Loaded into a service process a test starts (`--import`), this writes every answer its HTTP
 * servers give to `$ANSWERS_DIR/<pid>.jsonl`, one JSON line each (the body in base64), so that the
 * test checks them against the OpenAPI document when the process ends (recorded-answers.ts).
 * Written synchronously: a process killed at any moment leaves every answer it had finished.
 */
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { captureAnswers } from './answer-capture.mjs';

const directory = process.env.ANSWERS_DIR;
if (directory) {
  const file = join(directory, `${process.pid}.jsonl`);
  const watched = new WeakSet();
  for (const Server of [http.Server, https.Server]) {
    const { listen } = Server.prototype;
    Server.prototype.listen = function (...args) {
      if (!watched.has(this)) {
        watched.add(this);
        captureAnswers(this, (answer) =>
          appendFileSync(file, `${JSON.stringify({ ...answer, body: answer.body.toString('base64') })}\n`),
        );
      }
      return listen.apply(this, args);
    };
  }
}
