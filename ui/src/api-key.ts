/**
 * The API key, kept for this browser tab only (sessionStorage: gone when the
 * tab closes, never in a URL, a cookie or localStorage).
 */
const STORAGE_KEY = 'ordered-action-queue.api-key';

/** The key entered in this tab, or null. */
export function getApiKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage disabled: the page asks again
  }
}

/** Remembers `key` for this tab. */
export function setApiKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

/** Forgets the key. */
export function clearApiKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
