// The page's first request, started the moment this small module arrives (it loads `async`,
// before the rest of the modules have loaded and run): the session cookie traded for an access
// token is on the first view's critical path. api.js's first refresh() takes this answer; the
// same module instance (one address) is what api.js imports. Tabs take turns (a Web Lock), as
// every refresh does.
// On Today (the landing page: no hash, or one naming no other view, as app.js's route() reads
// it), the answer also brings Today's reads and words (`?first=today`): one round trip, not two.
const view = location.hash.replace(/^#\/?/, '').split('/')[0];
const first = ['habits', 'tasks', 'finance', 'savings', 'health', 'settings'].includes(view) ? '' : '?first=today';
const run = () => fetch(`/api/v1/auth/browser/refresh${first}`, { method: 'POST', credentials: 'same-origin' });
export const firstRefresh = navigator.locks ? navigator.locks.request('lifelog-refresh', run) : run();
// Taken (and its failure reported) by api.js; never an unhandled rejection meanwhile.
firstRefresh.catch(() => {});
