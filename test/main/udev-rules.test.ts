import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IDTECH_VENDOR_ID, MAGTEK_VENDOR_ID } from '../../src/devices/hid/classify';

// The shipped udev rules: every line well formed, seat access for each vendor the docs name, and
// the card-reader vendors the device manager reads by default covered.

const text = readFileSync('resources/udev/70-punchcard-scanners.rules', 'utf8');
const rules = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));

describe('udev rules for scanners', () => {
  it('has only well-formed hidraw/usb rules granting seat access', () => {
    for (const rule of rules) {
      expect(rule).toMatch(/^SUBSYSTEM=="(hidraw|usb)", ATTRS?\{idVendor\}=="[0-9a-f]{4}", TAG\+="uaccess", GROUP="plugdev", MODE="0660"$/);
    }
  });

  it('covers Honeywell, Zebra, Datalogic, Newland, MagTek and ID TECH on hidraw and usb', () => {
    const vendors = (subsystem: string) => rules.filter((r) => r.includes(`"${subsystem}"`)).map((r) => /idVendor\}=="(\w+)"/.exec(r)![1]);
    const expected = ['0c2e', '05e0', '05f9', '1eab', MAGTEK_VENDOR_ID.toString(16).padStart(4, '0'), IDTECH_VENDOR_ID.toString(16).padStart(4, '0')];
    expect(vendors('hidraw').sort()).toEqual([...expected].sort());
    expect(vendors('usb').sort()).toEqual([...expected].sort());
  });
});
