import { useCallback, useEffect, useState } from 'preact/hooks';

export type AsyncState<T> = { status: 'loading' } | { status: 'error'; error: unknown } | { status: 'done'; value: T };

/**
 * Loads something when a screen opens (and again when `deps` change or
 * reload() is called): the one pattern of the app's screens, so each shows
 * <Loading/>, <ErrorNotice/> or its data the same way. A later answer wins
 * over an earlier one still under way.
 */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[] = []): [AsyncState<T>, () => void] {
  const [state, setState] = useState<AsyncState<T>>({ status: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => (previous.status === 'done' && round > 0 ? previous : { status: 'loading' }));
    load().then(
      (value) => current && setState({ status: 'done', value }),
      (error: unknown) => current && setState({ status: 'error', error }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return [state, reload];
}
