/**
 * Logging: `logging/setLevel`, `notifications/message`.
 */
import type { Meta } from './common.js';

/**
 * Syslog severities, least to most severe.
 *
 * @example
 * const atLeastWarning = LOGGING_LEVELS.slice(LOGGING_LEVELS.indexOf('warning'));
 */
export const LOGGING_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

/** @example const level: LoggingLevel = 'warning'; */
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

/**
 * True for one of the eight spec levels.
 *
 * @example
 * isLoggingLevel('warning'); // true
 * isLoggingLevel('warn'); // false
 */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return (LOGGING_LEVELS as readonly unknown[]).includes(value);
}

/**
 * Severity rank of a level (debug = 0 … emergency = 7).
 *
 * @example
 * loggingLevelRank('error') >= loggingLevelRank('warning'); // true: an error passes a 'warning' minimum
 */
export function loggingLevelRank(level: LoggingLevel): number {
  return LOGGING_LEVELS.indexOf(level);
}

/** @example const p: LoggingMessageParams = { level: 'info', logger: 'db', data: { rows: 3 } }; */
export type LoggingMessageParams = { level: LoggingLevel; logger?: string; data: unknown; _meta?: Meta };
