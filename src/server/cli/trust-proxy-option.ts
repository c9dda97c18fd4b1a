import { InvalidArgumentError } from 'commander';
import { parseTrustProxy, type TrustProxy } from '../http/trust-proxy';

/** The help text of --trust-proxy (punchcard store and central). */
export const TRUST_PROXY_HELP =
  'believe X-Forwarded-For (client addresses for rate limits) from these reverse proxies: addresses or CIDR ranges separated by commas (e.g. 10.0.0.5,192.168.1.0/24, loopback), or a hop count (default: PUNCHCARD_TRUST_PROXY, else never)';

/** --trust-proxy for commander: a bad value is a usage error. */
export function trustProxyOption(value: string): TrustProxy {
  try {
    return parseTrustProxy(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/**
 * The flag's setting, else PUNCHCARD_TRUST_PROXY's (unset or empty: null, off). A bad variable
 * prints why, sets the exit code and answers false: the command stops.
 */
export function trustProxyOf(flag: TrustProxy | undefined, env: NodeJS.ProcessEnv): TrustProxy | null | false {
  if (flag) return flag;
  const text = env.PUNCHCARD_TRUST_PROXY;
  if (text === undefined || text.trim() === '') return null;
  try {
    return parseTrustProxy(text);
  } catch (error) {
    console.error(`punchcard: PUNCHCARD_TRUST_PROXY: ${(error as Error).message}`);
    process.exitCode = 1;
    return false;
  }
}
