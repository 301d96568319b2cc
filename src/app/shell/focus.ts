/**
 * Focus after a navigation (WCAG 2.4.3): a screen-reader or keyboard user
 * lands on the new page's heading, not on the link they left behind. The
 * page's h1 may come a moment later (a lazily loaded page, data loading), so
 * this waits for it briefly; the document title follows the heading. The
 * first page of a visit only gets its title (`focus` false): there the skip
 * link is the first stop, as on any site.
 */
export function focusPageHeading(brand: string, focus = true): void {
  const started = performance.now();
  const attempt = () => {
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading) {
      document.title = brand ? `${heading.textContent} · ${brand}` : (heading.textContent ?? document.title);
      if (!focus) return;
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      heading.focus({ preventScroll: false });
      return;
    }
    if (performance.now() - started < 3000) requestAnimationFrame(attempt);
    else if (focus) document.getElementById('main')?.focus();
  };
  requestAnimationFrame(attempt);
}
