import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { invitedStaff, ownerOf, type SignedInStaff } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectCount, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// A back-office section typed into the address bar by someone whose role may not use it (left by the
// tenth round: a store manager at #/staff saw the screen with the node's bare refusal). Each says
// what the section is for and whom to ask, once; a role that may use it gets the screen.
describe('sections a role may not use, typed into the address bar', () => {
  let node: TestNode;
  let browser: Browser;
  let manager: SignedInStaff;
  let storeManager: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    const { vendorId } = await node.addVendor('Café Permisos');
    const owner = await ownerOf(node, vendorId);
    const store = await node.engine.db.selectFrom('stores').select('id').where('vendor_id', '=', vendorId).executeTakeFirstOrThrow();
    manager = await invitedStaff(node, owner, 'manager');
    storeManager = await invitedStaff(node, owner, 'store_manager', store.id);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const signedIn = (route: string, email: string) => backOfficePage(browser, node.url, email, route, null);

  it('a store manager at #/staff, #/audit and #/webhooks is told what each is for and whom to ask, with no refusal beside it', async () => {
    const told: Record<string, string> = {
      staff: 'Staff and their roles are managed by the program’s owners. Ask an owner.',
      audit: 'The audit log is for owners and managers of the program. Ask one of them.',
      webhooks: 'Webhooks are set up by owners and managers of the program: they carry every store’s events. Ask one of them.',
    };
    for (const [route, text] of Object.entries(told)) {
      const page = await signedIn(route, storeManager.email);
      await expectText(page.getByTestId('section-not-allowed'), text);
      await expectCount(page.getByRole('alert'), 1);
      await expectCount(page.getByRole('table'), 0);
      await page.context().close();
    }
  });

  it('a manager at #/staff is told the same; at #/audit and #/webhooks, the screens', async () => {
    const page = await signedIn('staff', manager.email);
    await expectText(page.getByTestId('section-not-allowed'), 'Staff and their roles are managed by the program’s owners. Ask an owner.');
    for (const route of ['audit', 'webhooks']) {
      await page.goto(`${node.url}/admin#/${route}`);
      await expectText(page.getByRole('tab', { selected: true }), route === 'audit' ? 'Audit log' : 'Webhooks');
      await expectCount(page.getByTestId('section-not-allowed'), 0);
    }
    await page.context().close();
  });
});
