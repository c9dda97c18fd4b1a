// `npm start -- <options>`: which options go to the desktop app (its switches for one run, read by
// src/main/desktop-config.ts applySwitches) and which to the headless demo node (`punchcard demo`),
// and what to tell the user about the ones the path taken cannot use. Pure: start.js does the I/O.

const DESKTOP_FLAGS = ['--kiosk', '--no-kiosk', '--no-scanners'];
// The app reads `--store=ID`; `--store ID` is accepted here too and handed on in the `=` form.
const DESKTOP_VALUED = ['--kiosk-display', '--store'];

/**
 * Splits start.js's arguments: `headless` (its own `--headless`), `desktop` (the app's switches, in
 * the form the app reads), `node` (everything else, for the headless node) and `problems` (switches
 * missing their value: stated, never guessed).
 */
export function splitStartArgs(argv) {
  const split = { headless: false, desktop: [], node: [], problems: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const name = arg.split('=')[0];
    if (arg === '--headless') split.headless = true;
    else if (DESKTOP_FLAGS.includes(arg)) split.desktop.push(arg);
    else if (!DESKTOP_VALUED.includes(name)) split.node.push(arg);
    else if (arg.includes('=')) split.desktop.push(arg);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('-')) {
      split.desktop.push(`${arg}=${argv[i + 1]}`);
      i += 1;
    } else split.problems.push(`${arg} needs a value (${arg}=${arg === '--store' ? 'ID' : 'N'})`);
  }
  return split;
}

/** One line per desktop switch the headless node has no use for, saying what to do instead. */
export function headlessNotes(desktop) {
  return desktop.map((arg) => {
    if (arg === '--kiosk' || arg.startsWith('--kiosk-display=')) {
      return `${arg}: the headless node opens no kiosk window; the kiosk screen is the node's address (below) in a browser, signed in with the kiosk key (below).`;
    }
    if (arg.startsWith('--store=')) {
      return `${arg}: the headless node serves every store in its data folder; a browser screen serves the store of the key it signs in with.`;
    }
    return `${arg}: a desktop app switch, nothing to do on the headless node.`;
  });
}

/** The line for options the desktop app does not take (the headless node's), or null. */
export function desktopIgnoredNote(node) {
  if (node.length === 0) return null;
  return `ignored by the desktop app: ${node.join(' ')} (options of the headless node: \`npm start -- --headless ${node.join(' ')}\`).`;
}
