import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** What {@link usePoll} gives: the last data and error, when it was loaded, and a way to reload now. */
export interface Poll<T> {
  data: T | undefined;
  error: Error | undefined;
  updatedAt: Date | undefined;
  reload: () => void;
}

/**
 * Loads with `load` now and then every `intervalMs` (no overlap: the next
 * load starts after the previous one ended), while the tab is visible, so
 * figures change live without reloading the page. Server-sent events would
 * not do: EventSource cannot send the API key header. Restarts when `deps`
 * change; an unmounted page cancels its request.
 */
export function usePoll<T>(load: (signal: AbortSignal) => Promise<T>, intervalMs: number, deps: unknown[]): Poll<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const [updatedAt, setUpdatedAt] = useState<Date>();
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      if (!document.hidden) {
        try {
          const value = await loadRef.current(controller.signal);
          if (controller.signal.aborted) return;
          setData(value);
          setError(undefined);
          setUpdatedAt(new Date());
        } catch (e) {
          if (controller.signal.aborted) return;
          setError(e as Error);
        }
      }
      timer = setTimeout(() => void tick(), intervalMs);
    };
    void tick();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [...deps, generation, intervalMs]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data, error, updatedAt, reload };
}
