import { useEffect, useState } from 'react';

export interface HashRoute {
  /** Path parts after `#/`: "#/stores/12" → ["stores", "12"]. */
  parts: string[];
  query: URLSearchParams;
}

function read(): HashRoute {
  const [path = '', query = ''] = window.location.hash.replace(/^#\/?/, '').split('?', 2);
  return { parts: path.split('/').filter(Boolean), query: new URLSearchParams(query) };
}

/** The back office's screens live in the hash (/admin#/stores/12), so the node serves one page. */
export function useHashRoute(): HashRoute {
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function go(hash: string): void {
  window.location.hash = hash;
}
