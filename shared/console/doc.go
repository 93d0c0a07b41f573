// Package console holds the live console: one small web page (HTML, plain JavaScript and CSS, embedded with
// go:embed) that a person opens in a browser to watch Sessions and answer their pending required actions — the
// human-in-the-loop case without writing code (docs/console.md).
//
// It owns the page's files and how they are served: which path names which file, its Content-Type, and the
// security headers (Content-Security-Policy `default-src 'self'`, `X-Content-Type-Options: nosniff`, no caching of
// the page). It does not own routing, authentication or the API the page calls: package httpapi mounts the
// handler at /console and /console/…, and the page itself calls the Agents API routes of the same origin with the
// project key the person typed in (docs/console.md §2).
package console
