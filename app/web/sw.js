// The service worker: keeps the page's shell (index.html, CSS, modules, i18n, icons) so
// the page opens with no network; the outbox it keeps in localStorage is then at hand.
// The server serves this file at /sw.js (its scope: the whole site) with two lines put
// before it: VERSION, a hash of every asset's content, and SHELL, the URLs to keep.
// A new version is a new script, so the browser installs it; its activation deletes
// the caches of older versions.
// API answers (/v1/...) and anything not in SHELL are never cached nor answered here.
/* global VERSION, SHELL */
const PREFIX = "squarescores-";
const CACHE = PREFIX + VERSION;
const KEPT = new Set(SHELL);

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((name) => name.startsWith(PREFIX) && name !== CACHE).map((name) => caches.delete(name))),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && url.pathname === "/") {
    // The network first, so a new version shows at once; the kept page when offline.
    event.respondWith(fetch(request).catch(() => caches.match("/", { cacheName: CACHE })));
    return;
  }
  if (!KEPT.has(url.pathname)) return;
  event.respondWith(
    caches.match(url.pathname, { cacheName: CACHE }).then((kept) => kept || fetch(request)),
  );
});
