// Who a note or a cancel is from when the operator does not say: in a container there is no
// $USER, but the process still runs as an account, and that name is used rather than refusing.
import { describe, expect, it } from 'vitest';
import { Flags, identity } from '../../client/commands/types.js';
import { UsageError } from '../../client/usage.js';

const none = new Flags({});

describe('the identity a command acts as', () => {
  it('is --as first, then $USER, then %USERNAME%', () => {
    expect(identity(new Flags({ as: 'carol@sre' }), { USER: 'bob' }, () => 'root')).toBe('carol@sre');
    expect(identity(none, { USER: 'bob', USERNAME: 'robert' }, () => 'root')).toBe('bob');
    expect(identity(none, { USERNAME: 'robert' }, () => 'root')).toBe('robert');
  });

  it('falls back to the account the process runs as when no variable names anyone (a container)', () => {
    expect(identity(none, {}, () => 'root')).toBe('root');
    expect(identity(none, { USER: '  ' }, () => 'app')).toBe('app');
  });

  it('is refused, saying how to give one, only when nothing names anyone', () => {
    expect(() => identity(none, {}, () => undefined)).toThrow(UsageError);
    expect(() => identity(none, {}, () => undefined)).toThrow(/--as <identity>/);
  });
});
