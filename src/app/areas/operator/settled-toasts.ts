import { useEffect } from 'preact/hooks';
import { useI18n, type I18n } from '../../i18n';
import { toast } from '../../ui';
import { onItemSettled, type QueueItem, type Settled } from '../../offline';

/** Items queued before this page loaded settle quietly (the job page lists them): no burst of toasts after a reload. */
const PAGE_LOADED = new Date().toISOString();
/** Answers arriving this close together make one toast ("Saved: 5 changes confirmed."), not five. */
const GATHER_MS = 400;

/**
 * "Saved." only once the server answered: the screens toast "Saved on this
 * device" when a change is queued, and this toasts what the server then made
 * of it — confirmed, refused (with its reason), or a conflict to decide.
 */
export function useSettledToasts(): void {
  const i18n = useI18n();
  useEffect(() => {
    let gathered: { item: QueueItem; settled: Settled }[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      const batch = gathered;
      gathered = [];
      announce(i18n, batch);
    };
    const stop = onItemSettled((item, settled) => {
      if (item.createdAt < PAGE_LOADED || item.kind === 'upload') return;
      gathered.push({ item, settled });
      clearTimeout(timer);
      timer = setTimeout(flush, GATHER_MS);
    });
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, [i18n]);
}

function announce({ t, errorText }: I18n, batch: { item: QueueItem; settled: Settled }[]): void {
  const confirmed = batch.filter((b) => b.settled === 'confirmed').map((b) => b.item);
  const completed = confirmed.some((i) => i.kind === 'transition' && i.action === 'complete');
  const paused = confirmed.some((i) => i.kind === 'transition' && i.action === 'pause');
  if (completed) toast(t('operator.review.completed'));
  else if (paused) toast(t('operator.run.paused'));
  else if (confirmed.length === 1 && confirmed[0].kind === 'fault') toast(t('operator.fault.raised'));
  else if (confirmed.length === 1) toast(t('operator.run.saved'));
  else if (confirmed.length > 1) toast(t('operator.run.savedMany', { n: confirmed.length }));
  for (const { item, settled } of batch) {
    if (settled === 'refused')
      toast(t('operator.queue.refusedToast', { message: item.error ? errorText(item.error) : '' }), {
        tone: 'danger',
        duration: 10_000,
      });
    if (settled === 'conflict') toast(t('operator.queue.conflictToast'), { tone: 'warning', duration: 10_000 });
  }
}
