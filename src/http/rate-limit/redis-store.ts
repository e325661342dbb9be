import { Redis } from 'ioredis';
import type { BucketPolicy, BucketStore } from './store.js';

// Every bucket of a report in one script, so one round trip; Redis's clock refills them all. A
// bucket's hash expires once it would be full again, which is the same as no hash.
// KEYS: the buckets; ARGV: burst, rate, then each bucket's points spent.
const reportScript = `
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
local left = {}
for i, key in ipairs(KEYS) do
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = burst
  if state[1] then tokens = math.min(burst, tonumber(state[1]) + (now - tonumber(state[2])) * rate) end
  tokens = tokens - tonumber(ARGV[2 + i])
  redis.call('HSET', key, 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('PEXPIRE', key, math.ceil((burst - tokens) / rate * 1000) + 1000)
  left[i] = tostring(tokens)
end
return left`;

type WithReport = Redis & { reportBuckets(keys: number, ...args: (string | number)[]): Promise<string[]> };

/**
 * The buckets in Redis (RATE_LIMIT_REDIS_URL), for fleets that would rather not write to the database
 * ten times a second per instance. Commands fail at once while Redis is away (no offline queue),
 * so requests never wait on it: the limiter goes on with its own counts meanwhile.
 */
export class RedisBucketStore implements BucketStore {
  private readonly redis: WithReport;
  /** The first connection, which the first report waits for (later ones fail at once while Redis is away). */
  private readonly connected: Promise<void>;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly policy: BucketPolicy,
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    }) as WithReport;
    // Failures surface through report(); ioredis would otherwise print every reconnection attempt.
    this.redis.on('error', () => {});
    this.redis.defineCommand('reportBuckets', { lua: reportScript });
    this.connected = this.redis.connect().catch(() => {});
  }

  async report(keys: string[], spent: number[]): Promise<number[]> {
    await this.connected;
    const left = await this.redis.reportBuckets(
      keys.length,
      ...keys.map((key) => this.prefix + key),
      this.policy.burst,
      this.policy.rate,
      ...spent,
    );
    return left.map(Number);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
