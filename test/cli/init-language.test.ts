import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// `punchcard init --language es`: a Spanish-speaking merchant's program starts in Spanish — the
// language customers' mail and pages default to, and the names of what init makes (the loyalty
// currency, quick pay, the first rule and tier, the counter and the keys), which they saw in
// English on every screen ("NIVEL: MEMBER").

const dirs: Array<{ remove(): void }> = [];
const tempDir = () => {
  const dir = makeTempDir('punchcard-init-language-');
  dirs.push(dir);
  return dir.path;
};
afterAll(() => {
  for (const dir of dirs) dir.remove();
});

function namesIn(data: string) {
  const db = new Database(`${data}/punchcard.db`, { readonly: true });
  try {
    const one = (sql: string) => (db.prepare(sql).pluck().all() as string[]).sort();
    return {
      language: one('select language from vendors'),
      currencies: one('select name from currencies'),
      rules: one('select name from earning_rules'),
      tiers: one("select name || ' / ' || summary || ' / ' || description from tiers"),
      counters: one('select name from points_of_sale'),
      keys: one('select label from api_keys'),
    };
  } finally {
    db.close();
  }
}

describe('punchcard init --language', () => {
  it('names what it makes in Spanish and sets the program in Spanish', async () => {
    const data = tempDir();
    const init = await run(['init', '--data', data, '--vendor', 'Café Andino', '--country', 'EC', '--language', 'ES', '--json']);
    expect(init.code, init.stderr).toBe(0);
    expect(namesIn(data)).toEqual({
      language: ['es'],
      currencies: ['Pago rápido USD', 'Puntos'],
      rules: ['1 punto por unidad gastada'],
      tiers: ['Miembro / Le damos la bienvenida al programa. / Cada miembro gana puntos en cada visita.'],
      counters: ['Caja 1'],
      keys: ['Caja 1', 'Quiosco'],
    });
  });

  it('stays English without it in an English-speaking country, and says nothing of it', async () => {
    const data = tempDir();
    const init = await run(['init', '--data', data, '--vendor', 'Cafe Uno', '--json']);
    expect(init.code).toBe(0);
    expect(init.stderr).not.toContain('the program speaks');
    expect(namesIn(data)).toMatchObject({ language: ['en'], currencies: ['Points', 'Quick Pay USD'], counters: ['Counter 1'], keys: ['Counter 1', 'Kiosk'] });
  });

  it("takes the country's language without it when the program speaks it, and says so on stderr", async () => {
    const quito = tempDir();
    const init = await run(['init', '--data', quito, '--vendor', 'Café Andino', '--country', 'EC', '--json']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain('the program speaks Spanish (es), the language of EC');
    expect(init.stderr).toContain('init --language en');
    expect(JSON.parse(init.stdout)).toHaveProperty('vendor_id'); // stdout stays one JSON object
    expect(namesIn(quito)).toMatchObject({ language: ['es'], currencies: ['Pago rápido USD', 'Puntos'], counters: ['Caja 1'] });

    // Asked for, English stays English in a Spanish-speaking country; a language the program does
    // not speak (Brazil's Portuguese) falls back to English.
    const english = tempDir();
    const asked = await run(['init', '--data', english, '--vendor', 'Tourist Café', '--country', 'ES', '--language', 'en', '--json']);
    expect(asked.stderr).not.toContain('the program speaks');
    expect(namesIn(english)).toMatchObject({ language: ['en'] });
    const saoPaulo = tempDir();
    expect((await run(['init', '--data', saoPaulo, '--vendor', 'Café Paulista', '--country', 'BR', '--currency', 'BRL', '--json'])).code).toBe(0);
    expect(namesIn(saoPaulo)).toMatchObject({ language: ['en'], currencies: ['Points', 'Quick Pay BRL'] });
  });

  it('refuses a language the program cannot speak before making anything', async () => {
    const data = `${tempDir()}/new`;
    const bad = await run(['init', '--data', data, '--vendor', 'X', '--language', 'fr', '--json']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('language must be one of en, es');
    expect(existsSync(data)).toBe(false);
  });
});
