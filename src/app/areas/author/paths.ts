/** The app's URLs: everything lives under /app/ (the shell's router base). */
export const APP_BASE = '/app';
export const appPath = (path: string) => `${APP_BASE}${path}`;
