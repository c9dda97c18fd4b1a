import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILE_KEPT_MS, forgetOldImportFiles } from '../../src/core/import/import-jobs';
import { openParams } from '../../src/core/messaging/sealed-params';
import { startJobs } from '../../src/server/node/jobs';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { freshEmail, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { startPostgresCentral, type ServedNode } from '../support/postgres-central';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A member import's file has a limited life (docs/decisions.md, seventeenth round): a job keeps
// its file a day after it ended, then the node's hourly jobs empty it (the job, its report and
// counts stay) and its confirmation and problem rows answer 409 import_file_expired; a person who
// leaves or is erased takes the kept files naming them with them (the app's deletion, the back
// office's removal). Over real HTTP, on an SQLite store and a PostgreSQL central.

const NODES: Array<{ name: string; start(): Promise<ServedNode> }> = [
  { name: 'SQLite', start: () => startTestNode({ rateLimits: ROOMY_RATE_LIMITS }) },
  { name: 'PostgreSQL', start: () => startPostgresCentral({ rateLimits: ROOMY_RATE_LIMITS }) },
];

const base64 = (text: string) => Buffer.from(text).toString('base64');

describe.each(NODES)('an import’s file on $name', ({ start }) => {
  let node: ServedNode;
  const asNode = () => node as unknown as TestNode;

  beforeAll(async () => {
    node = await start();
  }, 60_000);
  afterAll(() => node?.close());

  const upload = async (who: SignedInStaff, fileName: string, content: string) => {
    const reply = await staffCall(asNode(), who.token, 'POST', '/backoffice/imports/customers', { file_name: fileName, content_base64: base64(content) });
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    return reply.body.id as string;
  };
  const untilDone = async (who: SignedInStaff, id: string) => {
    for (let i = 0; i < 600; i += 1) {
      const reply = await staffCall(asNode(), who.token, 'GET', `/backoffice/imports/customers/${id}`);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      if (reply.body.status !== 'running') return reply.body;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the import never finished');
  };
  const preview = async (who: SignedInStaff, fileName: string, content: string) => {
    const id = await upload(who, fileName, content);
    expect((await untilDone(who, id)).status).toBe('finished');
    return id;
  };
  const fileOf = async (id: string) => (await node.engine.db.selectFrom('import_jobs').select('file').where('id', '=', id).executeTakeFirstOrThrow()).file;
  const problems = (who: SignedInStaff, id: string) => fetch(`${node.url}/backoffice/imports/customers/${id}/problems.csv`, { headers: { authorization: `Bearer ${who.token}` } });

  it('is kept a day after the job ended: the hourly jobs drop it, the job stays, confirming and the problem rows answer 409 import_file_expired', async () => {
    const v = await node.addVendor('Café Un Día');
    let owner = await ownerOf(asNode(), v.vendorId);
    const file = (tag: string) => `first_name,email\nOld,old.${tag}@dia.test\nBad,not-an-email\n`;
    const old = await preview(owner, 'old.csv', file('a'));
    node.clock.advance(FILE_KEPT_MS - 3600_000);
    owner = await ownerOf(asNode(), v.vendorId); // a day later: a new session
    const young = await preview(owner, 'young.csv', file('b'));
    node.clock.advance(3600_000 + 1);
    owner = await ownerOf(asNode(), v.vendorId);

    // The node's own hourly jobs (their first run comes a second after they start).
    const stop = startJobs(node.engine);
    try {
      for (let i = 0; i < 100 && (await fileOf(old)) !== ''; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await stop();
    }
    expect(await fileOf(old)).toBe('');
    expect(JSON.parse(await fileOf(young)).records).toHaveLength(2);
    // Safe run twice at once (central's processes each run it): nothing more to drop.
    expect(await Promise.all([forgetOldImportFiles(node.engine), forgetOldImportFiles(node.engine)])).toEqual([0, 0]);

    // The job, its report and counts stay.
    const job = await staffCall(asNode(), owner.token, 'GET', `/backoffice/imports/customers/${old}`);
    expect(job.body).toMatchObject({ status: 'finished', rows: 2, confirmed_as: null, report: { imported: 1, refused: 1 } });
    const confirm = await staffCall(asNode(), owner.token, 'POST', `/backoffice/imports/customers/${old}/confirm`);
    expect([confirm.status, confirm.body.code]).toEqual([409, 'import_file_expired']);
    const csv = await problems(owner, old);
    expect([csv.status, ((await csv.json()) as { code: string }).code]).toEqual([409, 'import_file_expired']);
    expect((await staffCall(asNode(), owner.token, 'GET', `/backoffice/imports/customers/${old}`)).body.confirmed_as).toBeNull();

    // The younger one is still whole: its problem rows, then its import.
    expect((await problems(owner, young)).status).toBe(200);
    const confirmed = await staffCall(asNode(), owner.token, 'POST', `/backoffice/imports/customers/${young}/confirm`);
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(202);
    expect((await untilDone(owner, confirmed.body.id)).report).toMatchObject({ imported: 1, refused: 1 });
  }, 60_000);

  it('goes with a person who is erased: by the app’s deletion and by the back office’s removal; a file not naming them stays', async () => {
    const v = await node.addVendor('Café Borrar');
    const elsewhere = await node.addVendor('Café Otro');
    const owner = await ownerOf(asNode(), v.vendorId);
    const otherOwner = await ownerOf(asNode(), elsewhere.vendorId);
    const ana = await signUpAt(asNode(), v.vendorId, { first_name: 'Anaís', last_name: 'Borrada', email_address: freshEmail('Anais.Erase') });
    const bruno = await signUpAt(asNode(), v.vendorId, { first_name: 'Bruno', last_name: 'Quitado', email_address: freshEmail('Bruno.Remove') });
    const setPhone = await http(`${node.url}${withSessionKey('/user/profile', bruno.key)}`, { method: 'PUT', body: { phone_number: '+14155550188' } });
    expect(setPhone.status, JSON.stringify(setPhone.body)).toBe(200);

    // Previews (never confirmed) holding them: Ana by her email written otherwise, at her program and
    // at one she never joined (that merchant's own list: kept); Bruno by his number as a US spreadsheet writes it.
    const naming = await preview(owner, 'ana.csv', `first_name,email,phone\nAnaís,  ${ana.email.toUpperCase()} ,\nZed,zed@borrar.test,\n`);
    const namingElsewhere = await preview(otherOwner, 'otro.csv', `name,email\nAnaís Borrada,${ana.email}\n`);
    const brunos = await preview(owner, 'bruno.csv', `first_name,phone\nBruno,(415) 555-0188\n`);
    const unrelated = await preview(owner, 'others.csv', `first_name,email,phone\nRosa,rosa@borrar.test,(415) 555-0111\n`);
    const before = await fileOf(unrelated);

    // Ana deletes her account in the app (the code as the node queued it for her email).
    expect((await http(`${node.url}${withSessionKey(`/vendor/${v.vendorId}/customers/${ana.userId}/submit`, ana.key)}`, { method: 'DELETE' })).status).toBe(200);
    const mail = await node.engine.db.selectFrom('messages_outbox').select('params').where('user_id', '=', ana.userId).where('template', '=', 'account_deletion').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const deleted = await http(`${node.url}/vendor/${v.vendorId}/customers`, { method: 'DELETE', body: { code: (openParams(node.engine, mail.params) as { code: string }).code } });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(await fileOf(naming)).toBe('');
    expect(JSON.parse(await fileOf(namingElsewhere)).records).toHaveLength(1);
    expect(JSON.parse(await fileOf(brunos)).records).toHaveLength(1);
    const confirm = await staffCall(asNode(), owner.token, 'POST', `/backoffice/imports/customers/${naming}/confirm`);
    expect([confirm.status, confirm.body.code]).toEqual([409, 'import_file_expired']);

    // Staff remove Bruno at his request.
    const removed = await staffCall(asNode(), owner.token, 'POST', `/backoffice/customers/${bruno.userId}/remove`, { reason: 'Asked at the counter', forfeit_balances: true });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(await fileOf(brunos)).toBe('');

    // Nothing of either stays in import_jobs; the file naming neither is as it was.
    const kept = JSON.stringify(await node.engine.db.selectFrom('import_jobs').selectAll().where('vendor_id', '=', v.vendorId).execute()).toLowerCase();
    for (const trace of [ana.email.toLowerCase(), 'borrada', '555-0188']) expect(kept, trace).not.toContain(trace);
    expect(await fileOf(unrelated)).toBe(before);
    expect((await staffCall(asNode(), owner.token, 'GET', `/backoffice/imports/customers/${naming}`)).body).toMatchObject({ status: 'finished', report: { imported: 1, already_members: 1 } });
  }, 60_000);
});
