// The service worker: the app's shell (the page, its modules, styles, catalogues, icons and
// manifest) kept in a cache named after the server's client version, so that a reload is instant
// and a reload without a network still opens the app, which then says it is offline and will
// reconnect. Rooms, state, records and the API are never cached: only GETs of the shell's own
// addresses are answered here, everything else goes to the network untouched.
// It takes no page over while it loads (no clients.claim): a page is served by it from its next
// load on. Served at /sw.js by the server (crisp/server/http/pages.py), which fills in VERSION (a hash of
// the client's files) and SHELL (their addresses): a new server version is a new worker, whose
// cache replaces the old one.
const VERSION = "__CRISP_CLIENT_VERSION__";
const SHELL = JSON.parse('__CRISP_CLIENT_SHELL__');
const CACHE = `crisp-shell-${VERSION}`;
const PAGE = "/"; // every page (/, /r/CODE, /r/CODE/tv) is the same shell, which routes itself
const PAGES = /^\/(r\/[A-Za-z]{5,12}(\/tv)?\/?)?$/;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll([PAGE, ...SHELL])).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith("crisp-shell-") && n !== CACHE).map((n) => caches.delete(n)))));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const page = request.mode === "navigate" && PAGES.test(url.pathname);
  if (!page && !SHELL.includes(url.pathname)) return; // not the shell: the network alone
  event.respondWith(caches.open(CACHE).then(async (cache) => {
    const kept = await cache.match(page ? PAGE : url.pathname);
    return kept ?? fetch(request);
  }));
});
