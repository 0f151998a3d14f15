/**
 * Request rates per credential, and per address for requests without a valid one: a token bucket
 * each, in this process's memory. With N processes behind a load balancer a credential may reach
 * N times its rate; buckets are the one state the architecture lets a process keep to itself. The
 * buckets least recently used go first when there are more than a limiter keeps (addresses are
 * many), so memory stays bounded whoever asks.
 */
export interface RateLimit {
  /** Tokens added per second. */
  perSecond: number;
  /** Bucket size: the burst a credential may send at once. */
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next request would be allowed (0 when it is). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  /** In order of last use, the least recent first. */
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly defaults: RateLimit,
    private readonly now: () => number = () => performance.now() / 1000,
    private readonly maxBuckets = 100_000,
  ) {}

  /** The limit of a credential: its own rate with the default burst window, or the defaults. */
  limitFor(perSecond: number | null): RateLimit {
    if (perSecond === null) return this.defaults;
    const window = this.defaults.burst / this.defaults.perSecond;
    return { perSecond, burst: Math.max(1, Math.round(perSecond * window)) };
  }

  take(key: string, limit: RateLimit): RateDecision {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + (now - bucket.at) * limit.perSecond);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value as string);
    return {
      allowed,
      limit: limit.burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((limit.burst - bucket.tokens) / limit.perSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perSecond)),
    };
  }
}
