/**
 * A value that SQLite answers at once and PostgreSQL with a promise (the hot
 * path's lookups, the rate-limit stores). Code on the request path continues
 * with `whenReady`, so the SQLite path runs without a promise or a microtask
 * tick per step; callers may still `await` the result either way.
 */
export type Answer<T> = T | Promise<T>;

export function whenReady<T, R>(value: Answer<T>, then: (value: T) => Answer<R>): Answer<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}
