/**
 * A group state as the JSON text to store (`ctx.groupState.set`), checked the
 * way jsonb and GROUP_STATE_MAX_BYTES need it, so that a bad value fails in
 * the handler's callback (rolled back, charged) rather than in the commit.
 *
 * @param value the handler's value.
 * @param maxBytes GROUP_STATE_MAX_BYTES (bytes of the UTF-8 JSON text).
 * @param lockId the group, for the messages.
 * @returns the JSON text.
 * @throws TypeError when JSON cannot represent the value (undefined, a
 *   function, a symbol, a BigInt, a cycle) or jsonb cannot store it (a NUL
 *   character or an unpaired UTF-16 surrogate).
 * @throws RangeError when the text is over `maxBytes`.
 */
export function groupStateJson(value: unknown, maxBytes: number, lockId: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`group state of lock ${lockId} cannot be stored as JSON: ${(error as Error).message}`);
  }
  if (text === undefined) throw new TypeError(`group state of lock ${lockId} cannot be stored as JSON: ${typeof value} is not a JSON value`);
  // JSON.stringify escapes a NUL as \u0000 and a lone surrogate as \udXXX
  // (preceded by an even number of backslashes: not a literal "\u" in a string).
  if (/(?<!\\)(?:\\\\)*\\u(0000|d[89a-f])/i.test(text)) {
    throw new TypeError(`group state of lock ${lockId} cannot be stored: it holds a NUL character or an unpaired UTF-16 surrogate, which jsonb refuses`);
  }
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) throw new RangeError(`group state of lock ${lockId} is ${bytes} bytes as JSON, over GROUP_STATE_MAX_BYTES (${maxBytes})`);
  return text;
}
