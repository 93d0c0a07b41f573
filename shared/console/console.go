package console

import (
	"embed"
	"net/http"
)

// Paths of the console (docs/console.md §1). Path serves the page; the page loads its assets relative to itself,
// as "console/<file>", so it works both at the root of the local stack and under an API Gateway stage prefix
// (https://…/<stage>/console).
const (
	Path   = "/console"
	Prefix = Path + "/"
)

// ContentSecurityPolicy is the policy of every console response: the page loads scripts, styles and data only from
// its own origin, runs no inline script or style, cannot be framed, and posts forms nowhere but itself.
const ContentSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"

//go:embed static
var files embed.FS

// asset is one served file: its name in static/ and its Content-Type.
type asset struct {
	file        string
	contentType string
}

// assets maps a request path to its file. Anything else under Prefix is not part of the console.
var assets = map[string]asset{
	Path:               {"static/index.html", "text/html; charset=utf-8"},
	Prefix + "app.js":  {"static/app.js", "text/javascript; charset=utf-8"},
	Prefix + "app.css": {"static/app.css", "text/css; charset=utf-8"},
}

// Has reports whether path names a console file (Path itself or one of its assets).
func Has(path string) bool {
	_, ok := assets[path]
	return ok
}

// Serve writes the file of r.URL.Path with its Content-Type and the console's security headers
// (Content-Security-Policy, X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer,
// Cache-Control: no-cache), or the body-less answer to HEAD. It answers only paths for which Has is true; the
// caller routes methods (GET and HEAD) and answers every other path itself. "/console/" (the page's own path with a
// trailing slash) is not a file: RedirectToPage answers it.
func Serve(w http.ResponseWriter, r *http.Request) {
	a, ok := assets[r.URL.Path]
	if !ok {
		http.NotFound(w, r) // unreachable behind Has; never serve outside the table
		return
	}
	body, err := files.ReadFile(a.file)
	if err != nil {
		http.Error(w, "console asset missing", http.StatusInternalServerError) // a build without the embedded files
		return
	}
	setHeaders(w.Header())
	w.Header().Set("Content-Type", a.contentType)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// RedirectToPage answers "/console/" with 308 to the page, as the relative reference "../console", so the redirect
// keeps any path prefix before /console (an API Gateway stage).
func RedirectToPage(w http.ResponseWriter, r *http.Request) {
	setHeaders(w.Header())
	w.Header().Set("Location", "../console")
	w.WriteHeader(http.StatusPermanentRedirect)
}

func setHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
}
