/*
 * How a read that sends stored content (payloads, results, errors, traces)
 * stays within MAX_RESPONSE_BYTES without ever refusing a whole page: the
 * sizes are measured first (by PostgreSQL, so nothing oversize is fetched),
 * then each item either keeps its content, ends the page, or is listed
 * without its content. This file imports nothing, so unit specs test it alone.
 */

/** How a page of items fits a response budget ({@link fitToBudget}). */
export interface BudgetFit {
  /** How many of the items the page holds (from the first); the rest belong to the next page. */
  count: number;
  /** Per item of the page (index < count): true when it is sent without its content. */
  omitted: boolean[];
}

/**
 * Fits items, in page order, into a response budget. Each item keeps its
 * content while that fits what is left of the budget. An item that does not:
 * - ends the page (`count` stops before it) when the view is paged (`canCut`),
 *   it is not the first, and its content alone fits an empty page, so it is
 *   sent whole as the next page's first item;
 * - otherwise it is listed without its content (`omitted`), which costs the
 *   budget nothing, so one oversize row never blocks its neighbours or the page.
 *
 * @param contentBytes each item's content size in bytes (non-negative), in page order.
 * @param budget bytes of content one response may carry (MAX_RESPONSE_BYTES).
 * @param canCut whether the page may stop early (the view has a cursor); false for one-shot views.
 * @returns how many items the page holds and which of them go without content.
 */
export function fitToBudget(contentBytes: readonly number[], budget: number, canCut = true): BudgetFit {
  const omitted: boolean[] = [];
  let left = budget;
  for (let i = 0; i < contentBytes.length; i++) {
    const bytes = contentBytes[i];
    if (bytes <= left) {
      left -= bytes;
      omitted.push(false);
    } else if (canCut && i > 0 && bytes <= budget) {
      return { count: i, omitted };
    } else {
      omitted.push(true);
    }
  }
  return { count: contentBytes.length, omitted };
}
