import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript script without types
import { desktopIgnoredNote, headlessNotes, splitStartArgs } from '../../scripts/start-args.js';

// Which of `npm start -- …` go to the desktop app and which to the headless node (scripts/start-args.js).

describe('npm start arguments', () => {
  it('sends the desktop switches to the app, in the form it reads, and the rest to the headless node', () => {
    expect(splitStartArgs(['--kiosk', '--store', '2', '--kiosk-display=1', '--no-scanners', '--port', '5000', '--data=./shop'])).toEqual({
      headless: false,
      desktop: ['--kiosk', '--store=2', '--kiosk-display=1', '--no-scanners'],
      node: ['--port', '5000', '--data=./shop'],
      problems: [],
    });
    expect(splitStartArgs(['--headless', '--no-kiosk', '--store=3'])).toMatchObject({ headless: true, desktop: ['--no-kiosk', '--store=3'], node: [] });
  });

  it('names a value switch given without its value', () => {
    expect(splitStartArgs(['--store', '--port', '0']).problems).toEqual(['--store needs a value (--store=ID)']);
    expect(splitStartArgs(['--kiosk-display']).problems).toEqual(['--kiosk-display needs a value (--kiosk-display=N)']);
  });

  it('says what each path does not use', () => {
    expect(headlessNotes(['--kiosk-display=1', '--no-scanners'])).toEqual([
      "--kiosk-display=1: the headless node opens no kiosk window; the kiosk screen is the node's address (below) in a browser, signed in with the kiosk key (below).",
      '--no-scanners: a desktop app switch, nothing to do on the headless node.',
    ]);
    expect(desktopIgnoredNote([])).toBeNull();
    expect(desktopIgnoredNote(['--data', 'x'])).toContain('ignored by the desktop app: --data x');
  });
});
