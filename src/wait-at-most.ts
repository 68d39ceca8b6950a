/**
 * Waits for `promise`, at most `ms` milliseconds: true when it settled in
 * time, false when the time ran out (the promise is left to settle alone).
 * Shared by every shutdown step that must not hang on a stuck handler or an
 * unreachable database.
 *
 * @param promise what to wait for; it must not reject (catch first).
 * @param ms the longest wait (ms).
 */
export async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
