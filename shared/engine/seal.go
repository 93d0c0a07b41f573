package engine

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// SealKeyBytes is the size of the sealing key: AES-256-GCM.
const SealKeyBytes = 32

// ErrNoSealKey: a secret had to be sealed or opened but the engine has no sealing key (Options.SealKey).
var ErrNoSealKey = errors.New("no sealing key configured")

// sealer encrypts secrets at rest (access-key secrets, token-vault API keys; docs/agentcore.md §6) with
// AES-256-GCM: sealed = 12-byte random nonce || ciphertext+tag. The additional data binds a sealed value to its
// record (its key), so a sealed value copied to another record does not open.
type sealer struct{ aead cipher.AEAD }

func newSealer(key []byte) (*sealer, error) {
	if len(key) == 0 {
		return nil, nil
	}
	if len(key) != SealKeyBytes {
		return nil, fmt.Errorf("sealing key: %d bytes, want %d", len(key), SealKeyBytes)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead: aead}, nil
}

func (s *sealer) seal(plaintext, aad string) ([]byte, error) {
	if s == nil {
		return nil, ErrNoSealKey
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return s.aead.Seal(nonce, nonce, []byte(plaintext), []byte(aad)), nil
}

func (s *sealer) open(sealed []byte, aad string) (string, error) {
	if s == nil {
		return "", ErrNoSealKey
	}
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("sealed value too short")
	}
	b, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(aad))
	if err != nil {
		return "", fmt.Errorf("open sealed value: %w", err)
	}
	return string(b), nil
}
