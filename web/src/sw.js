/* sw.js -- keeps the calculator working offline once it has loaded:
 * every file of web/dist/ is cached on install and served from the cache
 * first.  web/build.sh names the cache after the build's content. */
"use strict";
var CACHE = "kvbudget-@VERSION@";
var FILES = ["./", "index.html", "style.css", "kvbudget.js", "kvbudget.wasm",
             "app.js"];
self.addEventListener("install", function (e) {
    e.waitUntil(caches.open(CACHE).then(function (c) {
        return c.addAll(FILES);
    }).then(function () { return self.skipWaiting(); }));
});
self.addEventListener("activate", function (e) {
    e.waitUntil(caches.keys().then(function (keys) {
        return Promise.all(keys.filter(function (k) {
            return k !== CACHE;
        }).map(function (k) { return caches.delete(k); }));
    }).then(function () { return self.clients.claim(); }));
});
self.addEventListener("fetch", function (e) {
    if (e.request.method !== "GET")
        return;
    e.respondWith(caches.match(e.request, {ignoreSearch: true})
        .then(function (hit) { return hit || fetch(e.request); }));
});
