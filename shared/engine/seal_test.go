package engine

import (
	"bytes"
	"errors"
	"testing"
)

func TestSealerRoundTripsAndBindsTheRecord(t *testing.T) {
	t.Parallel()
	s, err := newSealer(bytes.Repeat([]byte{7}, SealKeyBytes))
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.seal("secret-value", "accesskey#A")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.seal("secret-value", "accesskey#A")
	if bytes.Equal(a, b) || bytes.Contains(a, []byte("secret-value")) {
		t.Fatalf("sealing is deterministic or leaks the plaintext: %x %x", a, b)
	}
	if got, err := s.open(a, "accesskey#A"); err != nil || got != "secret-value" {
		t.Fatalf("open = %q, %v", got, err)
	}
	if _, err := s.open(a, "accesskey#B"); err == nil {
		t.Fatal("a sealed value opened under another record's key")
	}
	other, _ := newSealer(bytes.Repeat([]byte{8}, SealKeyBytes))
	if _, err := other.open(a, "accesskey#A"); err == nil {
		t.Fatal("another sealing key opened the value")
	}
	if _, err := s.open(a[:5], "accesskey#A"); err == nil {
		t.Fatal("a truncated value opened")
	}
	if _, err := newSealer([]byte("short")); err == nil {
		t.Fatal("a 5-byte key was accepted")
	}
	var none *sealer
	if _, err := none.seal("x", "y"); !errors.Is(err, ErrNoSealKey) {
		t.Fatalf("no key: %v", err)
	}
}
