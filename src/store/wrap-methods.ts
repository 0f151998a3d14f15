/**
 * A store with each of its methods wrapped, for concerns that apply to every call alike
 * (outage handling, timing).
 */
import type { Store } from './port.js';

export type Method = (...args: unknown[]) => unknown;

/** What wraps one method: given it, the object it is called on, and its name (`users.list`, `ping`). */
export type Wrap = (method: Method, target: object, name: string) => Method;

/**
 * The store with each asynchronous method wrapped. Its groups are built here, once: each a proxy
 * of the group that wraps a method on first use (a wrapper made per call would cost an allocation
 * on every request), and again when the group's method is replaced, so `store.users.list(…)` costs
 * one proxy trap, as a flat store's call did. The lifecycle's methods are wrapped now;
 * `poolStats` and non-methods pass through.
 */
export function wrapMethods(store: Store, wrap: Wrap): Store {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) {
    if (typeof value === 'function') wrapped[name] = name === 'poolStats' ? value : wrap(value as Method, store, name);
    else if (typeof value === 'object' && value !== null) wrapped[name] = wrapGroup(value, name, wrap);
    else wrapped[name] = value;
  }
  return wrapped as unknown as Store;
}

/** One group of the store's methods, each wrapped under `group.method`. */
function wrapGroup(group: object, groupName: string, wrap: Wrap): object {
  const wrapped = new Map<string, { original: Method; wrapper: Method }>();
  return new Proxy(group, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const known = wrapped.get(property);
      if (known !== undefined && known.original === value) return known.wrapper;
      const wrapper = wrap(value as Method, target, `${groupName}.${property}`);
      wrapped.set(property, { original: value as Method, wrapper });
      return wrapper;
    },
  });
}
