import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { getReloadSettings, updateReloadSettings } from '../../core/payments/auto-reload/reload-settings';
import { ReloadSettingsBody, ReloadSettingsSchema, SessionOnlyQuery } from '../../shared/schemas/payments';
import { customerOf, requireSession } from '../auth/session';
import { namingProfileField } from './billing-profile-field';
import { reloadSettingsWire } from './payments-wire';

const tags = ['Reloads'];
const config = { style: 'legacy' as const };

/** Auto reload: read and change amount, threshold and the billing profile it charges. */
export const reloadSettingsRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const session = requireSession(engine);

  app.get(
    '/user/reload/settings',
    { config, preValidation: session, schema: { tags, querystring: SessionOnlyQuery, response: { 200: ReloadSettingsSchema } } },
    async (request) => {
      const c = customerOf(request);
      return reloadSettingsWire(await getReloadSettings(engine, { vendorId: c.vendorId, userId: c.userId }));
    },
  );

  app.put(
    '/user/reload/settings',
    { config, preValidation: session, schema: { tags, querystring: SessionOnlyQuery, body: ReloadSettingsBody, response: { 200: ReloadSettingsSchema } } },
    async (request) => {
      const b = request.body;
      const profile = b.user_billingprofile;
      const settings = await namingProfileField(
        'user_billingprofile',
        updateReloadSettings(engine, customerOf(request), {
          amount: b.amount,
          threshold: b.threshold,
          profileId: profile === undefined ? undefined : profile === null || profile === '' || profile === 'null' ? null : profile,
        }),
      );
      return reloadSettingsWire(settings);
    },
  );
};
