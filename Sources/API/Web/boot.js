// The page's first request, started the moment this small module arrives (it loads `async`,
// before the rest of the modules have loaded and run): the session cookie traded for an access
// token is on the first view's critical path. api.js's first refresh() takes this answer; the
// same module instance (one address) is what api.js imports. Tabs take turns (a Web Lock), as
// every refresh does.
const run = () => fetch('/api/v1/auth/browser/refresh', { method: 'POST', credentials: 'same-origin' });
export const firstRefresh = navigator.locks ? navigator.locks.request('lifelog-refresh', run) : run();
// Taken (and its failure reported) by api.js; never an unhandled rejection meanwhile.
firstRefresh.catch(() => {});
