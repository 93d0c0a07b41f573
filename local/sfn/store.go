package sfn

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// fileStore keeps one JSON file per state machine, activity and execution under DataDir/<kind>/, written
// with a temporary file and an atomic rename. File names are the SHA-256 of the ARN, so any ARN is safe.
type fileStore struct {
	dir string
}

const (
	kindMachines   = "statemachines"
	kindActivities = "activities"
	kindExecutions = "executions"
)

func openFileStore(dir string) (*fileStore, error) {
	for _, k := range []string{kindMachines, kindActivities, kindExecutions} {
		if err := os.MkdirAll(filepath.Join(dir, k), 0o755); err != nil {
			return nil, fmt.Errorf("sfn: create data folder %s: %w", dir, err)
		}
	}
	return &fileStore{dir: dir}, nil
}

func (s *fileStore) file(kind, arn string) string {
	sum := sha256.Sum256([]byte(arn))
	return filepath.Join(s.dir, kind, hex.EncodeToString(sum[:16])+".json")
}

func (s *fileStore) put(kind, arn string, data []byte) error {
	if s == nil {
		return nil
	}
	target := s.file(kind, arn)
	tmp, err := os.CreateTemp(filepath.Dir(target), ".tmp-*")
	if err != nil {
		return fmt.Errorf("sfn: write %s %s: %w", kind, arn, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("sfn: write %s %s: %v %v", kind, arn, werr, cerr)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("sfn: write %s %s: %w", kind, arn, err)
	}
	return nil
}

func (s *fileStore) remove(kind, arn string) error {
	if s == nil {
		return nil
	}
	if err := os.Remove(s.file(kind, arn)); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("sfn: delete %s %s: %w", kind, arn, err)
	}
	return nil
}

// loadAll decodes every file of kind into a fresh value from newV (numbers as json.Number).
func (s *fileStore) loadAll(kind string, fn func(dec *json.Decoder) error) error {
	entries, err := os.ReadDir(filepath.Join(s.dir, kind))
	if err != nil {
		return fmt.Errorf("sfn: read %s: %w", kind, err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.dir, kind, e.Name()))
		if err != nil {
			return fmt.Errorf("sfn: read %s/%s: %w", kind, e.Name(), err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := fn(dec); err != nil {
			return fmt.Errorf("sfn: load %s/%s: %w", kind, e.Name(), err)
		}
	}
	return nil
}
