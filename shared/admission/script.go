package admission

import (
	"encoding/json"
	"strings"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/script"
)

// checkScript parses raw, an `x_baton.script` value, as the scripted model does (script.Parse) and returns a 400
// invalid_request_error with param path when it does not parse: `Invalid '<path>': <parse error>.` The parse error
// names the offending member (e.g. `rules[0].when.user_matches: error parsing regexp: …`); it is repeated only when
// it is at most 256 bytes of printable text, else only the member it names is. Absent or null raw is valid (the
// empty script).
func checkScript(path string, raw json.RawMessage) error {
	if _, err := script.Parse(raw); err != nil {
		return invalid(path, "Invalid '%s': %s.", path, scriptErrorText(err))
	}
	return nil
}

// checkExecutionScript is the Stage B script check: when cfg selects the scripted model (agent.Config.ModelProtocol), its
// x_baton.script must parse; the param is agent.x_baton.script whether the script came from the saved Agent or
// the inline agent.
func checkExecutionScript(cfg agent.Config) error {
	if cfg.ModelProtocol() != agent.ProtocolScripted || cfg.XBaton == nil {
		return nil
	}
	return checkScript("agent.x_baton.script", cfg.XBaton.Script)
}

// scriptErrorText is the part of a script.Parse error a message may repeat (see checkScript).
func scriptErrorText(err error) string {
	msg := strings.TrimPrefix(strings.TrimSuffix(err.Error(), "."), "script: ")
	if echoable(msg) {
		return msg
	}
	if member, _, ok := strings.Cut(msg, ": "); ok && echoable(member) {
		return member + ": invalid"
	}
	return "the script is invalid"
}

// checkModelProvider refuses a configuration that selects no model provider (agent.Config.ModelProtocol() == "",
// after the deployment's default was applied): 400 invalid_request_error naming the settings that would select one
// (docs/model-providers.md "Choosing a model"). The scripted model never answers in place of a real one.
func checkModelProvider(cfg agent.Config) error {
	if cfg.ModelProtocol() != "" {
		return nil
	}
	const p = "agent.x_baton.model_provider"
	return invalid(p, "No model provider is selected for model '%s': set '%s' (protocol %s), set the deployment's default provider (BATON_MODEL_PROVIDER), or use model '%s' for the scripted test model.",
		echoModel(cfg.Model), p, strings.Join(ModelProviderProtocols[1:], ", "), agent.ScriptedModel)
}

// echoModel is a model name as a message may repeat it.
func echoModel(m string) string {
	if len(m) > 128 || !echoable(m) {
		return "(given)"
	}
	return m
}
