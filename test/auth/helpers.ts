// Shared by the auth tests: what an action was refused with.
import { expect } from 'vitest';
import { AuthError, type AuthErrorKind } from '../../src/auth/index.ts';

/** The AuthError `action` throws; fails the test if it throws anything else or nothing. */
export function refusal(action: () => unknown): AuthError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(AuthError);
    return error as AuthError;
  }
  throw new Error('expected an AuthError, but the action succeeded');
}

/** 'accepted', or the kind of AuthError `action` is refused with. */
export function outcomeKind(action: () => unknown): 'accepted' | AuthErrorKind {
  try {
    action();
    return 'accepted';
  } catch (error) {
    expect(error).toBeInstanceOf(AuthError);
    return (error as AuthError).kind;
  }
}
