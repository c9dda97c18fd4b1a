// `?asset` imports and friends, handled by electron-vite's main/preload build.
/// <reference types="electron-vite/node" />
