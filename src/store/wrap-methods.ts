/**
 * A store with each of its methods wrapped, for concerns that apply to every call alike
 * (outage handling, timing).
 */
import type { Store } from './port.js';

export type Method = (...args: unknown[]) => unknown;

/**
 * The store with each asynchronous method wrapped once, on first use (a wrapper a call would
 * cost an allocation on every request). `poolStats` and non-methods pass through.
 */
export function wrapMethods(store: Store, wrap: (method: Method, target: Store, name: string) => Method): Store {
  const wrapped = new Map<string | symbol, { original: Method; wrapper: Method }>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'poolStats' || typeof property !== 'string') return value;
      const known = wrapped.get(property);
      if (known !== undefined && known.original === value) return known.wrapper;
      const wrapper = wrap(value as Method, target, property);
      wrapped.set(property, { original: value as Method, wrapper });
      return wrapper;
    },
  });
}
