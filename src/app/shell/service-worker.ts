import { builtInTexts, initialLanguage, translator } from '../i18n';
import { toast } from '../ui/toast';

/**
 * Registers the app's service worker (src/app/sw.ts, served at /app/sw.js,
 * scope /app/): the shell then loads from its cache, online or not.
 *
 * Updates: the browser fetches /app/sw.js on every load (no-cache); a new
 * build's worker installs beside the running one and waits, so a page never
 * has its files swapped under it. The user is told ("a new version is
 * ready") and may reload now — the new worker takes over and the page
 * reloads once — or carry on: the new version starts on the next visit.
 */
export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  const language = initialLanguage();
  const t = translator(builtInTexts(language), language);
  let reloading = false;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (reloading) location.reload();
  });
  const offer = (worker: ServiceWorker) =>
    toast(t('shell.update.ready'), {
      tone: 'info',
      action: {
        label: t('shell.update.reload'),
        run() {
          reloading = true;
          worker.postMessage({ type: 'SKIP_WAITING' });
        },
      },
    });
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }).then(
      (registration) => {
        // a worker already waiting (installed during an earlier visit)
        if (registration.waiting && navigator.serviceWorker.controller) offer(registration.waiting);
        registration.addEventListener('updatefound', () => {
          const installing = registration.installing;
          installing?.addEventListener('statechange', () => {
            // installed while another worker controls the page: an update, not the first install
            if (installing.state === 'installed' && navigator.serviceWorker.controller) offer(installing);
          });
        });
      },
      () => undefined,
    );
  });
}
