/** The Cache Storage cache holding the media of jobs opened online; the page fills it, the service worker answers from it. */
export const MEDIA_CACHE = 'wip-job-media';
