import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { ownerOf, type SignedInStaff } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// A key issued in the back office is shown once, with where it is used: a cashier or kiosk key signs
// in at this node's screens (its address as the node knows it) and opens that screen; an
// integration's calls go to the node's API.
describe('a key just issued says where to sign in with it', () => {
  let node: TestNode;
  let browser: Browser;
  let owner: SignedInStaff;
  let storeId: number;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    const vendor = await node.addVendor('Keys Café');
    storeId = vendor.storeId;
    owner = await ownerOf(node, vendor.vendorId);
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function issue(page: Page, role: string, label: string): Promise<string> {
    await page.getByRole('combobox', { name: 'Role' }).click();
    await page.getByRole('option', { name: role }).click();
    await page.getByRole('textbox', { name: 'Label' }).fill(label);
    await page.getByRole('button', { name: 'Issue a key' }).click();
    await page.getByTestId('issued-key').waitFor();
    return (await page.getByTestId('issued-key').textContent()) ?? '';
  }

  it('names the screen and the node’s address for a cashier and a kiosk key, the API for an integration', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, `stores/${storeId}`, null);
    await page.getByRole('button', { name: 'Issue a key' }).waitFor();

    const cashier = await issue(page, 'Cashier (counter)', 'Front till');
    expect((await authenticateApiKey(node.engine, cashier)).role).toBe('cashier');
    await expectText(page.getByTestId('issued-key-where'), `Sign in with it at ${node.url}/ in a browser: it opens the cashier screen (counter).`);

    await issue(page, 'Kiosk (self check-in)', 'Door kiosk');
    await expectText(page.getByTestId('issued-key-where'), `Sign in with it at ${node.url}/ in a browser: it opens the kiosk screen (self check-in).`);

    await issue(page, 'Integration', 'Web shop');
    await expectText(page.getByTestId('issued-key-where'), `An integration sends it with its calls to this node’s API at ${node.url}/ (documentation at ${node.url}/docs).`);
    await page.context().close();
  });

  it('says it in Spanish too', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, `stores/${storeId}`, null);
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await page.getByRole('combobox', { name: 'Rol' }).click();
    await page.getByRole('option', { name: 'Quiosco (autorregistro)' }).click();
    await page.getByRole('textbox', { name: 'Etiqueta' }).fill('Quiosco puerta');
    await page.getByRole('button', { name: 'Emitir una clave' }).click();
    await expectText(page.getByTestId('issued-key-where'), `Ingrese con ella en ${node.url}/ desde un navegador: abre la pantalla de quiosco (autorregistro).`);
    await page.context().close();
  });
});
