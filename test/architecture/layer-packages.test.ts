import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// Which packages each layer may use (docs/architecture.md, "Layers and import direction"): the
// holes import-direction.test.ts leaves. A Node builtin without the `node:` prefix, a server
// package in src/shared, Electron or React in src/server, anything but Electron in the sandboxed
// preload, node-hid outside src/devices. Each case must be refused by `no-restricted-imports`.
const eslint = new ESLint({ cwd: process.cwd() });

async function ruleIds(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('packages per layer', () => {
  it.each([
    ['src/shared/x.ts', "import { readFileSync } from 'fs';\nexport const x = readFileSync;"],
    ['src/shared/x.ts', "import pino from 'pino';\nexport const x = pino;"],
    ['src/shared/x.ts', "import { create } from 'zustand';\nexport const x = create;"],
    ['src/renderer/src/x.ts', "import { createHash } from 'crypto';\nexport const x = createHash;"],
    ['src/renderer/src/x.ts', "import pino from 'pino';\nexport const x = pino;"],
    ['src/server/x.ts', "import { app } from 'electron';\nexport const x = app;"],
    ['src/server/x.ts', "import { useState } from 'react';\nexport const x = useState;"],
    ['src/server/x.ts', "import { Button } from '@mantine/core';\nexport const x = Button;"],
    ['src/preload/x.ts', "import Fastify from 'fastify';\nexport const x = Fastify;"],
    ['src/preload/x.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;"],
    ['src/core/x.ts', "import type HID from 'node-hid';\nexport type X = HID.HID;"],
    ['src/main/x.ts', "import type HID from 'node-hid';\nexport type X = HID.HID;"],
  ])('refuses %s: %s', async (filePath, code) => {
    expect(await ruleIds(filePath, code)).toContain('no-restricted-imports');
  });

  it.each([
    ['src/shared/x.ts', "import { Type } from 'typebox';\nexport const x = Type;"],
    ['src/shared/x.ts', "import { IsoTimestamp } from './schemas/common';\nexport const x = IsoTimestamp;"],
    ['src/preload/x.ts', "import { contextBridge } from 'electron';\nimport { IPC_QUIT } from '../shared/desktop-bridge';\nexport const x = [contextBridge, IPC_QUIT];"],
    ['src/renderer/src/x.ts', "import { create } from 'zustand';\nimport { Button } from '@mantine/core';\nexport const x = [create, Button];"],
    // A folder of the renderer's own named like a Node builtin is not that builtin.
    ['src/renderer/src/cashier/x.ts', "import { STORE_EVENT_TYPES } from '../events/event-stream';\nexport const x = STORE_EVENT_TYPES;"],
    ['src/server/x.ts', "import Fastify from 'fastify';\nimport { readFileSync } from 'node:fs';\nexport const x = [Fastify, readFileSync];"],
    ['src/devices/x.ts', "import type HID from 'node-hid';\nexport type X = HID.HID;"],
    ['src/main/x.ts', "import { app } from 'electron';\nimport pino from 'pino';\nexport const x = [app, pino];"],
  ])('allows %s: %s', async (filePath, code) => {
    expect(await ruleIds(filePath, code)).toEqual([]);
  });
});
