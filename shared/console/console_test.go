package console

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestEveryPathServesItsEmbeddedFileWithTheSecurityHeaders(t *testing.T) {
	t.Parallel()
	for path, a := range assets {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			want, err := files.ReadFile(a.file)
			if err != nil || len(want) == 0 {
				t.Fatalf("embedded %s: %d bytes, %v", a.file, len(want), err)
			}
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				w := httptest.NewRecorder()
				Serve(w, httptest.NewRequest(method, path, nil))
				body := w.Body.String()
				if method == http.MethodHead {
					body, want = "", nil
				}
				h := w.Header()
				if w.Code != http.StatusOK || body != string(want) || h.Get("Content-Type") != a.contentType {
					t.Errorf("%s %s = %d %q (%d bytes), want 200 %q with the file", method, path, w.Code, h.Get("Content-Type"), len(body), a.contentType)
				}
				if h.Get("Content-Security-Policy") != ContentSecurityPolicy || h.Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("%s %s headers = %v, want the console's CSP and nosniff", method, path, h)
				}
			}
		})
	}
}

func TestPolicyAllowsOnlyTheOwnOrigin(t *testing.T) {
	t.Parallel()
	if !strings.HasPrefix(ContentSecurityPolicy, "default-src 'self';") {
		t.Errorf("policy %q does not start with default-src 'self'", ContentSecurityPolicy)
	}
	for _, loose := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "https:", "data:"} {
		if strings.Contains(ContentSecurityPolicy, loose) {
			t.Errorf("policy %q allows %s", ContentSecurityPolicy, loose)
		}
	}
}

// The page references its assets relative to itself ("console/<file>"), so it works under an API Gateway stage
// prefix, and every reference is a served file.
func TestThePageLoadsOnlyServedAssetsByRelativePath(t *testing.T) {
	t.Parallel()
	page, err := files.ReadFile("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(string(page), -1)
	if len(refs) < 2 {
		t.Fatalf("the page references %d assets, want the script and the stylesheet", len(refs))
	}
	for _, m := range refs {
		ref := m[1]
		if !strings.HasPrefix(ref, "console/") || !Has("/"+ref) {
			t.Errorf("the page references %q, want console/<a served file>", ref)
		}
	}
	if regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`).Match(page) || strings.Contains(string(page), "style=") {
		t.Error("the page has inline script or style, which the policy blocks")
	}
}

// Text from the API reaches the page only as text: the script never parses HTML.
func TestScriptInsertsNoHTML(t *testing.T) {
	t.Parallel()
	js, err := files.ReadFile("static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
		if strings.Contains(string(js), sink) {
			t.Errorf("app.js uses %s", sink)
		}
	}
}

func TestRedirectKeepsThePathPrefix(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	RedirectToPage(w, httptest.NewRequest(http.MethodGet, Prefix, nil))
	if w.Code != http.StatusPermanentRedirect || w.Header().Get("Location") != "../console" {
		t.Errorf("redirect = %d %q, want 308 ../console", w.Code, w.Header().Get("Location"))
	}
}

func TestHasNamesOnlyTheConsoleFiles(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"/console": true, "/console/app.js": true, "/console/app.css": true,
		"/console/": false, "/console/index.html": false, "/console/../v1/agents": false, "/console/static/app.js": false,
	} {
		if got := Has(path); got != want {
			t.Errorf("Has(%q) = %v, want %v", path, got, want)
		}
	}
}
