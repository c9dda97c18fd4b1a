import { useCallback, useEffect, useState } from 'react';
import { errorMessage } from '../api/client';

/** What `useLoad` gives: the value, or the node's refusal, and a way to ask again. */
export interface Loaded<T> {
  data: T | null;
  error: string | null;
  reload: () => void;
}

/** Loads something from the node, with its error as the node said it; `reload` asks again. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
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
