import { useState } from 'preact/hooks';

/**
 * Runs one flow-control request with a busy flag and an error, then asks the
 * section to reload (its figures change on every instance at once).
 */
export function useAction(onDone: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const run = async (request: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await request();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
      onDone();
    }
  };
  return { busy, error, run };
}
