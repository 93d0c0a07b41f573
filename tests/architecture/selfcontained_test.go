package architecture

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// outsideCitation matches a citation of a source that a clone of the repository does not have: the development
// workspace's reference folder (the parent directory's shared folder, its seeds and spec digests, its design and
// style notes) and its numbered design decisions. The repository's own restatements are docs/agents-api.md,
// docs/decisions.md and docs/internals.md (README "Contracts"). Character classes keep this file from matching
// itself.
var outsideCitation = regexp.MustCompile(strings.Join([]string{
	`\.\.[/]shared\b`,
	`\bseed[s][/]`,
	`\bspe[c][/][A-Za-z0-9_-]+\.md\b`,
	`\bDESIG[N]\b`,
	`\bSTYL[E]\.md\b`,
	`\bDecision[s]? \d`,
}, "|"))

// notScanned are tracked files that only tools write: dependency lock files with hashes and package names.
var notScanned = map[string]bool{"go.sum": true, "package-lock.json": true}

// citationsIn returns "line: text" for each line of data that cites a source outside the repository.
func citationsIn(data []byte) []string {
	var found []string
	for i, line := range bytes.Split(data, []byte("\n")) {
		if loc := outsideCitation.FindIndex(line); loc != nil {
			excerpt := strings.TrimSpace(string(line[max(0, loc[0]-40):min(len(line), loc[1]+40)]))
			found = append(found, strconv.Itoa(i+1)+": "+excerpt)
		}
	}
	return found
}

// TestNoCitationOutsideTheRepository: no tracked file (git ls-files; go.sum and package-lock.json excepted)
// points outside the repository; what the code relies on is restated in docs/.
func TestNoCitationOutsideTheRepository(t *testing.T) {
	t.Parallel()
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse --show-toplevel: %v", err)
	}
	dir := strings.TrimSpace(string(root))
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files listed %d files; expected the whole repository", len(files))
	}
	scanned := 0
	for _, name := range files {
		if notScanned[filepath.Base(name)] {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet committed
		}
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			continue // binary
		}
		scanned++
		for _, c := range citationsIn(data) {
			t.Errorf("%s:%s — cite the repository's docs (docs/agents-api.md, docs/decisions.md, docs/internals.md, …) instead", name, c)
		}
	}
	if scanned == 0 {
		t.Fatal("no file scanned")
	}
}

// TestOutsideCitationsAreRecognised proves the check can fail: each form of citation that used to appear in the
// repository is found, and the repository's own citations are not.
func TestOutsideCitationsAreRecognised(t *testing.T) {
	t.Parallel()
	dotdot, seeds, spec, design, decision, style := "..", "seeds", "spec", "DESIG"+"N", "Decisio"+"n", "STYLE"
	bad := []string{
		"// Contract: `" + dotdot + "/shared/" + seeds + "/000_64eba861cc7153a2.txt` \"HTTP MCP\".",
		"// Tool is a function the model may call (" + seeds + "/000 \"Functions\").",
		"// functionTool validates a declaration (" + spec + "/agents-api-rules.md §3.1).",
		"Contract: digest " + spec + "/agents-api-wire.md §4.2.",
		"// (" + design + " " + decision + " 7). Up to singleCommitCalls calls this is one transaction",
		"// the calls are durable before any event shows them (" + design,
		"# Container image of the runtime (ECS service tasks, " + design + " \"Shape\").",
		"Architecture: " + design + ".md \"Shape\" and \"Deployment\";",
		"// records, reachable from every adapter (" + style + ".md \"Dependency direction\").",
		"// " + decision + " 9's wire choices; races of tool results",
		"      \"Comment\": \"One Run task per harness kind (" + design + " " + decision + " 6).\",",
	}
	for _, line := range bad {
		if got := citationsIn([]byte("package x\n" + line + "\n")); len(got) != 1 || !strings.HasPrefix(got[0], "2: ") {
			t.Errorf("citationsIn(%q) = %q, want one citation on line 2", line, got)
		}
	}
	good := []string{
		"// (docs/decisions.md §7). Up to singleCommitCalls calls this is one transaction",
		"// functionTool validates a declaration (docs/agents-api.md §3.1, §W3.2).",
		"import \"github.com/baton-run/baton/shared/session\"",
		"// the local stack's seed data (the scripted model's rules); see docs/specification.md",
		"Runtime capability names (docs/agents-api.md §5.3); a design decision (docs/decisions.md \"Shape\").",
	}
	for _, line := range good {
		if got := citationsIn([]byte(line)); len(got) != 0 {
			t.Errorf("citationsIn(%q) = %q, want none", line, got)
		}
	}
}

// sectionCitation is a citation of numbered sections of a repository doc: "docs/agents-api.md §3.1, §W2.3",
// "docs/decisions.md §7", "docs/internals.md §L2".
var sectionCitation = regexp.MustCompile("(docs/[a-z0-9-]+\\.md)\x60?((?:[ ,;]*(?:and )?§[A-Z]?[0-9.]*[0-9](?:[–-]§?[A-Z]?[0-9.]*[0-9])?)+)")

// sectionNumber is one "§…" of a citation.
var sectionNumber = regexp.MustCompile(`§([A-Z]?[0-9.]*[0-9])`)

// docSections returns the section numbers a Markdown doc defines: the first word of each heading ("## 3. Tool…",
// "### 3.1 function", "#### W2.3 Retries", "### §7 Rendezvous…") and bold list labels ("- **§L2 DynamoDB Local.**").
func docSections(text string) map[string]bool {
	secs := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		var first string
		switch {
		case strings.HasPrefix(line, "#"):
			if f := strings.Fields(strings.TrimLeft(line, "#")); len(f) > 0 {
				first = f[0]
			}
		case strings.HasPrefix(line, "- **§"):
			first = strings.Fields(strings.TrimPrefix(line, "- **"))[0]
		}
		if first = strings.TrimSuffix(strings.TrimPrefix(first, "§"), "."); first != "" {
			secs[first] = true
		}
	}
	return secs
}

// TestSectionCitationsExist: every "docs/<page>.md §n" in a tracked file names a page and a section that exist,
// so the citations that replaced the outside ones lead somewhere.
func TestSectionCitationsExist(t *testing.T) {
	t.Parallel()
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse --show-toplevel: %v", err)
	}
	dir := strings.TrimSpace(string(root))
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	sections := map[string]map[string]bool{}
	cited := 0
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if notScanned[filepath.Base(name)] {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		for _, m := range sectionCitation.FindAllStringSubmatch(string(data), -1) {
			doc := m[1]
			if sections[doc] == nil {
				text, err := os.ReadFile(filepath.Join(dir, doc))
				if err != nil {
					t.Errorf("%s cites %s, which does not exist", name, doc)
					continue
				}
				sections[doc] = docSections(string(text))
			}
			for _, n := range sectionNumber.FindAllStringSubmatch(m[2], -1) {
				cited++
				if !sections[doc][n[1]] {
					t.Errorf("%s cites %s §%s, which has no such section", name, doc, n[1])
				}
			}
		}
	}
	if cited < 100 {
		t.Errorf("found %d section citations; expected the repository's many (is the pattern broken?)", cited)
	}
}

// TestDocSectionsAreRecognised checks the section reader on the heading forms the docs use.
func TestDocSectionsAreRecognised(t *testing.T) {
	t.Parallel()
	got := docSections("# Title\n## 3. Tool declarations\n### 3.1 function\n#### W2.3 Retries\n### §7 Rendezvous\n- **§L2 DynamoDB Local.** x\ntext § 9\n")
	for _, want := range []string{"3", "3.1", "W2.3", "7", "L2"} {
		if !got[want] {
			t.Errorf("docSections misses %q: %v", want, got)
		}
	}
	if got["9"] || len(got) != 6 {
		t.Errorf("docSections = %v, want the six headings only", got)
	}
	m := sectionCitation.FindStringSubmatch("(docs/" + "agents-api.md §3.1, §W2.3 and §5.3–§5.4)")
	if m == nil || len(sectionNumber.FindAllString(m[2], -1)) != 4 {
		t.Errorf("sectionCitation = %q, want four sections", m)
	}
}
