/** Kept equal to package.json's version (a test checks it); bundled code cannot read package.json. */
export const VERSION = '0.1.0';
