package httpapi

import (
	"net/http"

	"github.com/baton-run/baton/shared/console"
)

// The live console (docs/console.md): GET /console serves the page and GET /console/<file> its assets, without
// authentication and without the beta header — the files hold no data; the page sends the project key the person
// types in on each API call it makes. GET /console/ redirects to the page. Any other path under /console is 404
// unsupported_operation; another method is 405 with Allow.

// consoleRoutes mounts the console's routes (GET and HEAD).
func (a *api) consoleRoutes() {
	a.route(a.console, console.Path, methods{"GET": console.Serve})
	a.route(a.console, console.Prefix+"{file...}", methods{"GET": a.consoleFile})
}

// consoleFile answers /console/<file>: an asset of the console, the redirect of /console/, or 404.
func (a *api) consoleFile(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == console.Prefix:
		console.RedirectToPage(w, r)
	case console.Has(r.URL.Path):
		console.Serve(w, r)
	default:
		a.unknownRoute(w, r)
	}
}
