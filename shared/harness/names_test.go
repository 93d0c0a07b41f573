package harness_test

import (
	"strings"
	"testing"

	"github.com/baton-run/baton/shared/harness"
)

func TestMCPToolNameIsProviderSafeAndReversibleThroughTheHarness(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("y", 80)
	tests := []struct {
		label, tool string
		want        string // "" = only the properties are checked
	}{
		{"everything", "get-sum", "everything__get-sum"},
		{"git", "git_status", "git__git_status"},
		{"my.server", "a.b/c d", ""},
		{"srv", long, ""},
		{"srv", "ünïcode", ""},
		{strings.Repeat("l", 40), strings.Repeat("t", 30), ""},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		got := harness.MCPToolName(tc.label, tc.tool)
		if tc.want != "" && got != tc.want {
			t.Errorf("MCPToolName(%q, %q) = %q, want %q", tc.label, tc.tool, got, tc.want)
		}
		if !harness.ProviderToolName.MatchString(got) {
			t.Errorf("MCPToolName(%q, %q) = %q breaks the provider rule", tc.label, tc.tool, got)
		}
		if again := harness.MCPToolName(tc.label, tc.tool); again != got {
			t.Errorf("MCPToolName is not deterministic: %q then %q", got, again)
		}
		key := tc.label + "\x00" + tc.tool
		if prev, ok := seen[got]; ok && prev != key {
			t.Errorf("%q and %q map to the same name %q", prev, key, got)
		}
		seen[got] = key
	}
	// Names that differ only in characters the mapping replaces stay distinct.
	if harness.MCPToolName("a.b", "c") == harness.MCPToolName("a/b", "c") {
		t.Error("a.b/c and a/b/c map to the same name")
	}
}
