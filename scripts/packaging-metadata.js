// Who publishes the desktop app (the .deb's Maintainer, the installers' author and homepage): read
// from configuration at packaging time, never from placeholders in package.json. Sources, later
// ones winning: packaging.json at the repository root ({"maintainer": {"name", "email"},
// "homepage"}), then PUNCHCARD_MAINTAINER_NAME, PUNCHCARD_MAINTAINER_EMAIL, PUNCHCARD_HOMEPAGE.

import { URL } from 'node:url';

const PLACEHOLDER = /(^|[.@])(punchcard\.local|example\.(com|org|net))$/i;

/** The metadata, or the problems that stop a release from being packaged with it. */
export function packagingMetadata({ env = {}, file = null } = {}) {
  const name = (env.PUNCHCARD_MAINTAINER_NAME ?? file?.maintainer?.name ?? '').trim();
  const email = (env.PUNCHCARD_MAINTAINER_EMAIL ?? file?.maintainer?.email ?? '').trim();
  const homepage = (env.PUNCHCARD_HOMEPAGE ?? file?.homepage ?? '').trim();
  const problems = [];
  if (!name) problems.push('the maintainer name is missing (PUNCHCARD_MAINTAINER_NAME or packaging.json maintainer.name)');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) problems.push('the maintainer email is missing or not an email address (PUNCHCARD_MAINTAINER_EMAIL or packaging.json maintainer.email)');
  else if (PLACEHOLDER.test(email.split('@')[1])) problems.push(`the maintainer email ${email} is a placeholder`);
  let url = null;
  try {
    url = new URL(homepage);
  } catch {
    problems.push('the homepage is missing or not a URL (PUNCHCARD_HOMEPAGE or packaging.json homepage)');
  }
  if (url && url.protocol !== 'https:') problems.push('the homepage must be an https:// URL');
  if (url && PLACEHOLDER.test(url.hostname)) problems.push(`the homepage ${homepage} is a placeholder`);
  return problems.length ? { ok: false, problems } : { ok: true, maintainer: { name, email }, homepage };
}

/** electron-builder options that put the metadata into the package (package.json stays as it is). */
export function electronBuilderArgs(meta) {
  return [
    `--config.extraMetadata.author.name=${meta.maintainer.name}`,
    `--config.extraMetadata.author.email=${meta.maintainer.email}`,
    `--config.extraMetadata.homepage=${meta.homepage}`,
    `--config.linux.maintainer=${meta.maintainer.name} <${meta.maintainer.email}>`,
  ];
}
