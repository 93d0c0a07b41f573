package agent

import (
	"bytes"
	"encoding/json"
	"github.com/baton-run/baton/shared/jsonwire"
)

// Defaults rendered for members a caller omitted (docs/agents-api.md §2.1 "Saved defaults when omitted").
var (
	defaultText         = json.RawMessage(`{"format":{"type":"text"},"verbosity":"medium"}`)
	defaultReasoning    = json.RawMessage(`{"effort":null,"summary":null}`)
	defaultMultiAgent   = json.RawMessage(`{"enabled":false,"max_concurrent_subagents":0}`)
	defaultCompaction   = json.RawMessage(`{"async":true}`)
	defaultExperimental = json.RawMessage(`{"time_awareness":false}`)
)

// ResourceFields returns the configuration members of an Agent-shaped JSON object, with defaults filled in and the
// x_baton api_key replaced by api_key_configured. The caller adds identity members (id, object, timestamps).
// Keys: name, model, instructions, metadata, tools, text, reasoning, service_tier, multi_agent, compaction,
// experimental, and x_baton when set.
func (c Config) ResourceFields() map[string]any {
	m := map[string]any{
		"name":         c.Name,
		"model":        c.Model,
		"instructions": c.Instructions,
		"metadata":     nonNilMap(c.Metadata),
		"tools":        nonNilTools(c.Tools),
		"text":         orDefault(c.Text, defaultText),
		"reasoning":    orDefault(c.Reasoning, defaultReasoning),
		"service_tier": orString(c.ServiceTier, "auto"),
		"multi_agent":  orDefault(c.MultiAgent, defaultMultiAgent),
		"compaction":   orDefault(c.Compaction, defaultCompaction),
		"experimental": orDefault(c.Experimental, defaultExperimental),
	}
	if c.XBaton != nil {
		m["x_baton"] = c.XBaton.public()
	}
	return m
}

// MarshalJSON renders the saved Agent resource (`object: "agent"`, docs/agents-api.md §W3.3).
func (a Agent) MarshalJSON() ([]byte, error) {
	m := a.Config.ResourceFields()
	m["id"] = a.ID
	m["object"] = "agent"
	m["created_at"] = a.CreatedAt
	m["updated_at"] = a.UpdatedAt
	return jsonwire.Marshal(m)
}

func (x *Extension) public() map[string]any {
	out := map[string]any{"harness": orString(x.Harness, HarnessBaton)}
	if x.ModelProvider != nil {
		mp := map[string]any{"protocol": x.ModelProvider.Protocol, "api_key_configured": x.ModelProvider.APIKey != ""}
		if x.ModelProvider.Model != "" {
			mp["model"] = x.ModelProvider.Model
		}
		if x.ModelProvider.BaseURL != "" {
			mp["base_url"] = x.ModelProvider.BaseURL
		}
		out["model_provider"] = mp
	}
	if len(x.Script) > 0 {
		out["script"] = x.Script
	}
	return out
}

func orDefault(v, d json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(v)) == 0 || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return d
	}
	return v
}

func orString(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func nonNilTools(t []json.RawMessage) []json.RawMessage {
	if t == nil {
		return []json.RawMessage{}
	}
	return t
}
