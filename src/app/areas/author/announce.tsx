import { useRef, useState } from 'preact/hooks';

/**
 * A live region for what the author did not see happen: a step moved, an
 * upload finished. Assertive, so a move is read out before the next key.
 * The same text said twice in a row is still announced (a zero-width
 * alternation makes it a change).
 */
export function useAnnouncer() {
  const [message, setMessage] = useState('');
  const flip = useRef(false);
  const announce = (text: string) => {
    flip.current = !flip.current;
    setMessage(flip.current ? text : `${text}\u200b`);
  };
  const region = (
    <div class="visually-hidden" aria-live="assertive" aria-atomic="true" data-testid="author-announcer">
      {message}
    </div>
  );
  return { announce, region };
}
