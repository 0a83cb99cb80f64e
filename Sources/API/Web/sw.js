// The dashboard's service worker: keeps the page and its files (this version's) so the page
// opens when the server cannot be reached; the page then shows the last Today it kept itself.
// API answers are never cached here.
const VERSION = '{{version}}';
const SHELL = `lifelog-shell-${VERSION}`;
const FILES = ['/', ...{{assets}}];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith('lifelog-shell-') && n !== SHELL).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname === '/' || url.pathname === '/index.html') {
    // The page: the network first (a new version), the kept one when the server is away.
    event.respondWith(fetch(event.request).catch(() => caches.match('/', { cacheName: SHELL })));
  } else if (url.pathname.startsWith('/assets/')) {
    event.respondWith(caches.match(event.request, { cacheName: SHELL }).then((hit) => hit || fetch(event.request)));
  }
});
