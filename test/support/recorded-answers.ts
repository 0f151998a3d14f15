/**
 * The answers a service process gave, to whatever sent the request, checked against the document
 * it serves once the process has ended. answer-recorder.mjs, loaded into the process, writes them
 * down; a test that stops the process fails on the first answer that left the document, and the
 * answers of a process that ended on its own are checked when the test file ends.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import type { WrittenAnswer } from './answer-capture.mjs';
import { answerProblems, type OpenApiContract } from './openapi-contract.js';

/** What a process loads (`--import`) to write its answers down in the directory ANSWERS_DIR names. */
export const ANSWER_RECORDER = new URL('./answer-recorder.mjs', import.meta.url).href;

const unchecked = new Set<() => Promise<unknown>>();
after(async () => {
  for (const check of unchecked) await check();
});

export interface RecordedAnswers {
  /** Fails with every answer that left the document, once the process has ended. */
  assertHeld(): Promise<void>;
  /** How many answers were checked, once the process has ended. */
  checked(): Promise<number>;
}

export function recordedAnswers(
  directory: string,
  contract: () => Promise<OpenApiContract>,
  ended: Promise<unknown>,
): RecordedAnswers {
  let read: Promise<{ count: number; problems: string[] }> | undefined;
  const outcome = () =>
    (read ??= ended.then(async () => {
      try {
        const lines = readdirSync(directory)
          .filter((name) => name.endsWith('.jsonl'))
          .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n').filter(Boolean));
        if (lines.length === 0) return { count: 0, problems: [] };
        const against = await contract();
        const problems = lines.flatMap((line) => {
          const answer = JSON.parse(line) as Omit<WrittenAnswer, 'body'> & { body: string };
          return answerProblems(against, { ...answer, body: Buffer.from(answer.body, 'base64') });
        });
        return { count: lines.length, problems };
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    }));
  let asked = false;
  const assertHeld = async () => {
    asked = true;
    unchecked.delete(assertHeld);
    const { problems } = await outcome();
    assert.ok(problems.length === 0, `the service process answered outside its document:\n${problems.join('\n')}`);
  };
  void ended.then(() => {
    if (!asked) unchecked.add(assertHeld);
  });
  return { assertHeld, checked: async () => (await outcome()).count };
}
