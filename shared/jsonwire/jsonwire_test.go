package jsonwire

import (
	"encoding/json"
	"testing"
)

type nested struct{ Raw json.RawMessage }

func (n nested) MarshalJSON() ([]byte, error) {
	return Marshal(map[string]any{"raw": n.Raw, "s": "<a&b>"})
}

func TestMarshalKeepsHTMLCharactersAtEveryDepth(t *testing.T) {
	t.Parallel()
	got, err := Marshal(map[string]any{"outer": nested{Raw: json.RawMessage(`"<p>1 & 2</p>"`)}, "text": "<b>"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"outer":{"raw":"<p>1 & 2</p>","s":"<a&b>"},"text":"<b>"}`
	if string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	std, _ := json.Marshal("<b>")
	if string(std) == `"<b>"` {
		t.Fatal("encoding/json no longer escapes HTML; this package may be unnecessary")
	}
}
