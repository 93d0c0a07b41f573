package engine

import "testing"

// TestARefusalSaysWhatTheRuntimeHostNeeds: a refusal names the missing capabilities and, for those that depend on
// the runtime's host (Chromium for the browser), what to install or set.
func TestARefusalSaysWhatTheRuntimeHostNeeds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		missing []string
		want    string
	}{
		{nil, "No live runtime can execute this request: no live baton runtime is registered."},
		{[]string{"function_tools"}, "No live runtime can execute this request: no live baton runtime advertises function_tools."},
		{[]string{"agentcore_browser"}, "No live runtime can execute this request: no live baton runtime advertises agentcore_browser. " +
			"agentcore_browser needs Chromium on the runtime's host (Debian package chromium, or BATON_CHROMIUM_PATH) or BATON_TOOL_PROVIDER=aws."},
		{[]string{"builtin_tools", "tool_search"}, "No live runtime can execute this request: no live baton runtime advertises builtin_tools, tool_search. " +
			"builtin_tools (shell, file_operations) needs BATON_WORKSPACE_ROOT and bash on the runtime's host."},
	} {
		if got := refusalMessage("baton", tc.missing); got != tc.want {
			t.Errorf("refusalMessage(%q) =\n%s\nwant\n%s", tc.missing, got, tc.want)
		}
	}
}
