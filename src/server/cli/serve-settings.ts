import pino from 'pino';
import { checkNodeSettings } from '../node/node-settings';
import { SettingError } from '../node/setting-error';

/** pino's levels, from the fewest lines (fatal) to the most (trace); "silent" logs nothing. */
export const LOG_LEVELS = [...Object.keys(pino.levels.values).sort((a, b) => pino.levels.values[b]! - pino.levels.values[a]!), 'silent'];

/** --log-level's help: the levels checkLogLevel accepts. */
export const LOG_LEVEL_HELP = LOG_LEVELS.join(', ');

/**
 * The settings of a command that serves (store, central), checked before anything starts or is
 * made: a bad one is a SettingError, one line naming what was set. Answers the public URL to use.
 */
export function checkServeSettings(options: { logLevel: string; publicUrl?: string | undefined }, env: NodeJS.ProcessEnv): { publicUrl: string | undefined } {
  checkLogLevel(options.logLevel);
  const publicUrl = publicUrlOf(options.publicUrl, env);
  checkNodeSettings(env);
  return { publicUrl };
}

/** pino throws "default level:… must be included in custom levels" for anything else. */
export function checkLogLevel(level: string): void {
  if (!LOG_LEVELS.includes(level)) throw new SettingError(`--log-level: "${level}" is not a level: use one of ${LOG_LEVELS.join(', ')}.`);
}

/** --public-url, else PUNCHCARD_PUBLIC_URL; a bad one is named by where it was set. */
function publicUrlOf(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const given = flag || undefined;
  const publicUrl = given ?? (env.PUNCHCARD_PUBLIC_URL || undefined);
  if (publicUrl !== undefined && !isHttpUrl(publicUrl)) {
    throw new SettingError(`${given !== undefined ? '--public-url' : 'PUNCHCARD_PUBLIC_URL'}: ${JSON.stringify(publicUrl)} is not an http(s) URL (e.g. https://loyalty.example.com).`);
  }
  return publicUrl;
}

// The rule buildApp applies to the public URL (app.ts), checked here to name where the value came from.
function isHttpUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol } = new URL(url);
  return protocol === 'http:' || protocol === 'https:';
}
