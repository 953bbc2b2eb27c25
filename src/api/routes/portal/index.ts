/**
 * The portal-link family's routes (PO-1, PO-4 … PO-7) as one plugin: builds the workflow starter
 * over the API's Temporal client once and registers the link routes and the signed callback route
 * (the latter in its own context: it keeps the raw body), then the academic routes (PO-11, PO-12).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { PortalConfig } from '../../../config/portal';
import type { ApiDeps } from '../../deps';
import { verifyCallbackSignature } from '../../../services/portal/callback-verifier';
import { isPortalType } from '../../../services/portal/adapters/registry';
import { createTemporalPortalLinkStarter, type PortalLinkStarter } from '../../../services/portal/starter';
import { academicRoutes } from './academic';
import { scrapeCallbackRoutes } from './callbacks';
import { portalLinkRoutes } from './links';

/** A starter for an app built without a Temporal client: jobs stay QUEUED for the reconciler; callbacks answer 503. */
const noTemporal: PortalLinkStarter = {
  start: () => Promise.reject(new Error('no Temporal client in this process')),
  signalCallback: () => Promise.reject(new Error('no Temporal client in this process')),
  state: () => Promise.reject(new Error('no Temporal client in this process')),
};

/** Registers every PO route on `app`. */
export const poRoutes: FastifyPluginAsync<ApiDeps<PortalConfig>> = async (app, deps) => {
  const starter = deps.temporal ? createTemporalPortalLinkStarter(deps.temporal, deps.config) : noTemporal;
  await app.register(portalLinkRoutes, { config: deps.config, db: deps.db, hot: deps.hot, replays: deps.hot.replays, starter, isPortalType });
  await app.register(scrapeCallbackRoutes, { config: deps.config, db: deps.db, reads: deps.hot.reads, starter, verify: verifyCallbackSignature(deps.config) });
  await app.register(academicRoutes, { db: deps.db, isPortalType });
};
