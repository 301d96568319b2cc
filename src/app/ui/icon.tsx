/** A few line icons (24 px, currentColor), drawn inline: no icon font, no other origin. Decorative: the text beside says it. */
const PATHS = {
  home: 'M3 11l9-7 9 7v9a1 1 0 0 1-1 1h-5v-6H9v6H4a1 1 0 0 1-1-1z',
  templates: 'M6 3h9l4 4v14H6zM14 3v5h5M9 12h7M9 16h7',
  review: 'M4 4h16v12H8l-4 4zM8 9l2 2 4-4',
  jobs: 'M9 4h6v3H9zM6 5h3M15 5h3v16H6V5M9 12l2 2 4-4',
  scan: 'M4 8V4h4M16 4h4v4M20 16v4h-4M8 20H4v-4M7 12h10',
  board: 'M4 4h4v16H4zM10 4h4v10h-4zM16 4h4v7h-4z',
  plus: 'M12 5v14M5 12h14',
  deviations: 'M12 3l9 16H3zM12 10v4M12 17v.5',
  schedules: 'M4 6h16v14H4zM4 10h16M8 3v5M16 3v5M8 14h3v3H8z',
  signout: 'M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10',
  menu: 'M4 6h16M4 12h16M4 18h16',
  skills: 'M12 3l2.5 5 5.5.8-4 3.9.9 5.5-4.9-2.6-4.9 2.6.9-5.5-4-3.9 5.5-.8zM5 21h14',
  language: 'M4 5h10M9 3v2M6 9c1.5 3 4 5 7 6M12 5c-1 4-4 8-8 10M13 21l4-9 4 9M14.5 18h5',
  more: 'M5 12h.01M12 12h.01M19 12h.01',
  // the sync indicator's states (src/app/areas/operator/sync-indicator.tsx): one shape each, never colour alone
  synced: 'M7 19h10a4 4 0 0 0 0-8 6 6 0 0 0-11.6 1.5A3.5 3.5 0 0 0 7 19zM9.5 14.5l2 2 3.5-3.5',
  sending: 'M7 19h10a4 4 0 0 0 0-8 6 6 0 0 0-11.6 1.5A3.5 3.5 0 0 0 7 19zM12 17v-5M9.5 14.5L12 12l2.5 2.5',
  waiting: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18zM12 7v5l3 2',
  offline: 'M7 19h10a4 4 0 0 0 0-8 6 6 0 0 0-11.6 1.5A3.5 3.5 0 0 0 7 19zM3 3l18 18',
  unreachable: 'M4 4h16v6H4zM4 10v6h8M7 7h.01M15 15l5 5M20 15l-5 5',
  decision: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18zM9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .9-1 1.6v.6M12 17v.5',
  refused: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18zM9 9l6 6M15 9l-6 6',
  signin: 'M6 11h12v10H6zM8 11V7a4 4 0 0 1 8 0v4M12 15v2',
  checking: 'M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name }: { name: string }) {
  const d = PATHS[name as IconName];
  if (!d) return null;
  return (
    <svg class="icon" width="24" height="24" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path d={d} fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" />
    </svg>
  );
}
