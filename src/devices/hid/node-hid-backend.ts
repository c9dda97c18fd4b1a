import { createRequire } from 'node:module';
import type { HidBackend, HidDevice, HidDeviceInfo } from './hid-device';

// The real boundary: node-hid 3 (N-API prebuilds, so the same binary loads in Node and Electron).
// On Linux it reads hidraw and links libudev and libusb-1.0 (Debian: libusb-1.0-0); access needs the
// udev rules in resources/udev. Loaded on first use, so a machine without libusb still runs the node
// (the manager logs that HID devices cannot be listed) instead of failing at import.

type NodeHid = typeof import('node-hid');

let loaded: NodeHid | null = null;

function nodeHid(): NodeHid {
  loaded ??= createRequire(import.meta.url)('node-hid') as NodeHid;
  return loaded;
}

export const nodeHidBackend: HidBackend = {
  async devices(): Promise<HidDeviceInfo[]> {
    return nodeHid().devicesAsync();
  },
  open(path: string): HidDevice {
    // The synchronous HID class: its 'data'/'error' events are what HidDevice mirrors.
    return new (nodeHid().HID)(path) as unknown as HidDevice;
  },
};
