import type { Command } from 'commander';
import { addOwner } from '../../core/staff/add-owner';
import { DATA_FOLDER_HELP, openFolderEngine } from './folder-checks';
import { parseVendorId } from './store-command';
import { vendorOfNode } from './stores-command';
import { adminUrlOf, signInLink } from './admin-url';

/**
 * `punchcard owner`: an owner for a program that has none yet, or another one — `init --owner` only
 * makes the first owner of a vendor it creates, so a program set up without it had no way into the
 * back office. Password from PUNCHCARD_OWNER_PASSWORD, else a one-time sign-in link (24 h).
 */
export function registerOwnerCommand(program: Command): void {
  program
    .command('owner')
    .description("Add an owner to a program's back office (a password from PUNCHCARD_OWNER_PASSWORD, else a one-time sign-in link).")
    .requiredOption('--data <dir>', DATA_FOLDER_HELP)
    .requiredOption('--email <email>', "the owner's email (their sign-in)")
    .option('--vendor <id>', 'vendor id (default: the only one)', parseVendorId)
    .option('--name <name>', 'their name as staff see it (default: the start of the email)')
    .option('--admin-url <url>', "where the back office is reached, for the sign-in link (default: http://127.0.0.1:4321/admin, or :4320 on a central's folder)")
    .option('--json', 'print {"vendor_id", "owner_email", "owner_sign_in_link"?}')
    .action(async (options: { data: string; email: string; vendor?: number; name?: string; adminUrl?: string; json?: boolean }) => {
      const engine = await openFolderEngine({ dataDir: options.data, existing: true });
      try {
        const vendorId = await vendorOfNode(engine, options.vendor);
        const made = await addOwner(engine, { vendorId, email: options.email, name: options.name, password: process.env.PUNCHCARD_OWNER_PASSWORD || undefined });
        const summary = { vendor_id: vendorId, owner_email: made.staff.email, ...(made.signInToken ? { owner_sign_in_link: signInLink(await adminUrlOf(options.adminUrl, engine, options.data), made.signInToken) } : {}) };
        if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
        else process.stdout.write(`${Object.entries(summary).map(([k, v]) => `  ${k.padEnd(18)} ${v}`).join('\n')}\n${made.signInToken ? 'The link signs in once, within 24 hours.\n' : ''}`);
      } finally {
        await engine.close();
      }
    });
}
