import type { ServiceSettings } from '../../config/settings';
import { isLoopbackAddress } from './allowed-hosts';

/**
 * Why the service must not start as configured, or null: listening on an
 * address other machines can reach (HOST not loopback) without API_KEY is
 * refused unless TRUSTED_NETWORK says the network in front of it is trusted.
 */
export function networkExposureProblem(settings: Pick<ServiceSettings, 'HOST' | 'API_KEY' | 'TRUSTED_NETWORK'>): string | null {
  if (settings.API_KEY || settings.TRUSTED_NETWORK || isLoopbackAddress(settings.HOST)) return null;
  return (
    `Refusing to listen on ${settings.HOST} without API_KEY: anyone who reaches the port could run, cancel and read actions. ` +
    'Set API_KEY (at least 16 characters), or TRUSTED_NETWORK=true if only trusted clients can reach this address, or HOST=127.0.0.1'
  );
}

/** The warning logged at every start-up without API_KEY. */
export function noApiKeyWarning(settings: Pick<ServiceSettings, 'HOST' | 'TRUSTED_NETWORK'>): string {
  const where = isLoopbackAddress(settings.HOST) ? `only on ${settings.HOST} (this machine)` : `on ${settings.HOST}, TRUSTED_NETWORK=true`;
  return (
    `No API_KEY: every route is open to whoever reaches the port, listening ${where}. ` +
    'Browsers are held off (foreign Host names and cross-site writes are refused); set API_KEY for anything else'
  );
}
