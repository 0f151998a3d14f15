/** What the console's lists share: the document a GET answers, and every page of a list read in turn. */
import type { paths } from './client';

/** The document a GET of `P` answers with 200. */
export type Listed<P extends keyof paths> = paths[P]['get'] extends {
  responses: { 200: { content: { 'application/vnd.api+json': infer D } } };
}
  ? D
  : never;

/** The most records of one kind a screen reads: every page up to this many. */
const MOST_SHOWN = 500;

/** The largest page the API gives, asked for so that a list takes as few requests as it can. */
const PAGE = '100';

/** The query of one page: the largest, from just after `after` (the start when undefined). */
export const pageQuery = (after: string | undefined) => ({
  'page[size]': PAGE,
  ...(after === undefined ? {} : { 'page[after]': after }),
});

/** Every page of a list, following links.next, up to MOST_SHOWN records; and the first page's meta. */
export async function everyPage<R, M>(
  read: (after: string | undefined) => Promise<{ data?: { data: R[]; links: { next?: string }; meta?: M } }>,
): Promise<{ records: R[]; meta: M | undefined; complete: boolean }> {
  const records: R[] = [];
  let meta: M | undefined;
  let after: string | undefined;
  let complete = true;
  do {
    const { data } = await read(after);
    if (!data) {
      complete = false;
      break;
    }
    records.push(...data.data);
    meta ??= data.meta;
    after =
      data.links.next === undefined
        ? undefined
        : (new URL(data.links.next).searchParams.get('page[after]') ?? undefined);
  } while (after !== undefined && records.length < MOST_SHOWN);
  return { records, meta, complete };
}
