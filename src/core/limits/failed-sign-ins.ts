import { ServiceError } from '../../shared/errors';
import type { Engine } from '../engine';
import { countHit, currentWindow, forgetWindow } from './count-hit';

/** After this many wrong passwords in a row from one client, that client is locked out for LOCKOUT_MINUTES. */
export const MAX_FAILED_SIGN_INS = 5;
export const LOCKOUT_MINUTES = 15;
const WINDOW_MS = LOCKOUT_MINUTES * 60_000;

/**
 * Whose wrong passwords count together: an email (known or not: the answers never tell which) from
 * one client (an address, an IPv6 /64), for the account's current password. Another client is not
 * locked out by them — an attacker's five tries locked the real owner out everywhere, again every
 * 15 minutes, and told them apart from unknown emails — and a new password (a reset) starts anew.
 */
export interface SignInAttempt {
  kind: 'customer' | 'staff';
  email: string;
  client: string;
  /** Changes with the password (a piece of its hash), so a reset lifts a lockout; '' for no account. */
  passwordGeneration: string;
}

const keyOf = (attempt: SignInAttempt) => `sign-in:${attempt.kind}:${attempt.email.trim().toLowerCase()}:${attempt.client}:${attempt.passwordGeneration}`;

/** 429 account_locked, with when to try again, while this client is locked out of this email. */
export async function refuseWhileLockedOut(engine: Engine, attempt: SignInAttempt): Promise<void> {
  const window = await currentWindow(engine, keyOf(attempt), WINDOW_MS);
  if (window && window.hits >= MAX_FAILED_SIGN_INS) throw lockedOut(attempt, window.windowStart + WINDOW_MS - engine.clock.now());
}

/** Counts a wrong password: invalid_credentials, or account_locked at the MAX_FAILED_SIGN_INS-th. */
export async function failedSignIn(engine: Engine, attempt: SignInAttempt): Promise<never> {
  const window = await countHit(engine, keyOf(attempt), WINDOW_MS);
  if (window.hits >= MAX_FAILED_SIGN_INS) throw lockedOut(attempt, window.windowStart + WINDOW_MS - engine.clock.now());
  throw new ServiceError('invalid_credentials');
}

/** A right password: the count starts anew. */
export async function clearFailedSignIns(engine: Engine, attempt: SignInAttempt): Promise<void> {
  await forgetWindow(engine, keyOf(attempt));
}

function lockedOut(attempt: SignInAttempt, remainingMs: number): ServiceError {
  const minutes = Math.max(1, Math.ceil(remainingMs / 60_000));
  const whose = attempt.kind === 'customer' ? 'Your account is' : 'This account is';
  const reset = attempt.kind === 'customer' ? 'reset your password' : 'reset the password';
  const error = new ServiceError('account_locked', `Too many failed attempts. ${whose} locked for ${minutes} more minute${minutes === 1 ? '' : 's'}; try again later or ${reset}.`);
  error.retryAfterSeconds = Math.max(1, Math.ceil(remainingMs / 1000));
  return error;
}
