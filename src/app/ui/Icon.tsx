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
