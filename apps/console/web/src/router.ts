import { useEffect, useState } from 'preact/hooks';

/** Where the page is: `#/approvals`, `#/runs/<id>`, `#/executions/<id>`… (hash routes: the service serves one page). */
export type Route =
  | { readonly page: 'approvals' }
  | { readonly page: 'reviews' }
  | { readonly page: 'vault' }
  | { readonly page: 'runs'; readonly runId: string | null }
  | { readonly page: 'execution'; readonly executionId: string | null }
  | { readonly page: 'campaign'; readonly runId: string; readonly tool: string };

export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return '';
      }
    });
  switch (parts[0]) {
    case 'reviews':
      return { page: 'reviews' };
    case 'vault':
      return { page: 'vault' };
    case 'runs':
      return { page: 'runs', runId: parts[1] ? parts[1] : null };
    case 'executions':
      return { page: 'execution', executionId: parts[1] ? parts[1] : null };
    case 'campaigns':
      if (parts[1] && parts[2]) return { page: 'campaign', runId: parts[1], tool: parts[2] };
      return { page: 'approvals' };
    default:
      return { page: 'approvals' };
  }
}

export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = (): void => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
