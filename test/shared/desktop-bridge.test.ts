import { describe, expect, it } from 'vitest';
import { decodeLaunchArg, encodeLaunchArg, LAUNCH_SWITCH } from '../../src/shared/desktop-bridge';

describe('desktop launch arguments', () => {
  const args = { nodeUrl: 'http://127.0.0.1:43121', role: 'kiosk' as const };

  it('round-trips through one command-line switch', () => {
    const encoded = encodeLaunchArg(args);
    expect(encoded.startsWith(LAUNCH_SWITCH)).toBe(true);
    expect(encoded).toMatch(/^--punchcard=[A-Za-z0-9_-]+$/);
    expect(decodeLaunchArg(['electron', '--other', encoded])).toEqual(args);
  });

  it('never carries a key: process arguments are visible to local users (issue 17, item 6)', () => {
    const smuggled = encodeLaunchArg({ ...args, credential: 'pcak_secret' } as never);
    // Whatever main passes, the preload reads only the address and the role from the command line.
    expect(decodeLaunchArg([smuggled])).toEqual(args);
    expect(Object.keys(decodeLaunchArg([encodeLaunchArg(args)])!)).toEqual(['nodeUrl', 'role']);
  });

  it('refuses a missing, malformed or tampered switch', () => {
    expect(decodeLaunchArg(['electron'])).toBeNull();
    expect(decodeLaunchArg(['--punchcard=%%%'])).toBeNull();
    expect(decodeLaunchArg([encodeLaunchArg({ ...args, role: 'admin' as never })])).toBeNull();
    expect(decodeLaunchArg([encodeLaunchArg({ ...args, nodeUrl: 'http://evil.example/path' })])).toBeNull();
    expect(decodeLaunchArg([encodeLaunchArg({ ...args, nodeUrl: 'file:///etc/passwd' })])).toBeNull();
  });
});
