import { useCallback, useEffect, useState } from 'react';
import { errorMessage } from '../api/client';

/** Loads something from the node, with its error as the node said it; `reload` asks again. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  // The caller names what the load depends on, as with useEffect.
  const run = useCallback(load, deps);
  useEffect(() => {
    let live = true;
    setError(null);
    run()
      .then((value) => live && setData(value))
      .catch((e: unknown) => {
        if (!live) return;
        setData(null);
        setError(errorMessage(e));
      });
    return () => {
      live = false;
    };
  }, [run, round]);
  return { data, error, reload: () => setRound((n) => n + 1) };
}
