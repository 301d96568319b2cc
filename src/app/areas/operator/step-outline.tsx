import { useEffect, useRef, useState } from 'preact/hooks';
import { useT } from '../../i18n';
import { Badge, type Tone } from '../../ui';
import type { Progress, StepState } from '../../rules/progress';

/** One step in the outline: its number in the job, title, state (rules/progress.ts) and where it is. */
export interface OutlineStep {
  stepId: string;
  number: number;
  title: string;
  state: StepState;
  href: string;
  current: boolean;
  /** the link was followed: a page whose steps are all on it jumps there itself (preventDefault) */
  onFollow?: (event: MouseEvent) => void;
}

export interface OutlineSection {
  title: string;
  steps: OutlineStep[];
}

export const STATE_TONE: Record<StepState, Tone> = {
  'not-applying': 'neutral',
  open: 'info',
  waiting: 'warning',
  unsigned: 'warning',
  done: 'success',
};

/** Wide enough for the outline beside the page (a side column) rather than as a menu above it. */
const WIDE = '(min-width: 1200px)';

function useWide(): boolean {
  const [wide, setWide] = useState(() => window.matchMedia(WIDE).matches);
  useEffect(() => {
    const query = window.matchMedia(WIDE);
    const changed = () => setWide(query.matches);
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, []);
  return wide;
}

/**
 * The job's steps by section, each with its state, to jump to one: a side
 * column on a wide screen, a compact menu ("Steps · 2 of 5 done") above the
 * page on a tablet or phone. Sections fold; the current step is marked and
 * kept in view.
 */
export function StepOutline({
  sections,
  progress,
  review,
}: {
  sections: OutlineSection[];
  progress: Progress;
  /** the run page's last stop: "Review and complete" */
  review?: { href: string; current: boolean };
}) {
  const t = useT();
  const wide = useWide();
  const current = useRef<HTMLAnchorElement>(null);
  const currentId = review?.current ? 'review' : sections.flatMap((s) => s.steps).find((s) => s.current)?.stepId;
  useEffect(() => {
    current.current?.scrollIntoView({ block: 'nearest' });
  }, [currentId, wide]);
  const summary = t('operator.progress', { done: progress.done, total: progress.total });
  const menu = useRef<HTMLDetailsElement>(null);
  // the compact menu folds away once a step is chosen: the step, not the menu, fills the phone
  const followed = (event: MouseEvent, onFollow?: (event: MouseEvent) => void) => {
    // folded first: a jump within the page measures where the step is once the menu no longer pushes it down
    if (!wide && menu.current) menu.current.open = false;
    onFollow?.(event);
  };
  return (
    <details class="step-outline" open={wide} key={wide ? 'wide' : 'menu'} ref={menu}>
      <summary>
        <span class="step-outline-title">{t('operator.outline.title')}</span> <span class="step-outline-progress">{summary}</span>
      </summary>
      <nav aria-label={t('operator.outline.title')}>
        {sections.map((section, i) => (
          <details key={i} class="outline-section" open>
            <summary>{section.title}</summary>
            <ol>
              {section.steps.map((step) => (
                <li key={step.stepId} data-state={step.state}>
                  <a
                    href={step.href}
                    ref={step.current ? current : undefined}
                    aria-current={step.current ? 'step' : undefined}
                    onClick={(event) => followed(event, step.onFollow)}
                  >
                    <span class="outline-step-title">{t('operator.review.step', { n: step.number, title: step.title })}</span>{' '}
                    <Badge tone={STATE_TONE[step.state]}>{t(`operator.outline.state.${step.state}`)}</Badge>
                  </a>
                </li>
              ))}
            </ol>
          </details>
        ))}
        {review && (
          <p class="outline-review">
            <a
              href={review.href}
              ref={review.current ? current : undefined}
              aria-current={review.current ? 'step' : undefined}
              onClick={(event) => followed(event)}
            >
              {t('operator.review.title')}
            </a>
          </p>
        )}
      </nav>
    </details>
  );
}
