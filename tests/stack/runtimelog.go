package stack

import "os"

// Log returns what the runtime has written to its standard output and error so far (its slog lines, e.g.
// `task done runtime_id=… session_id=… turn_id=… status=…` per activity task), or "" when the log cannot be read.
func (p *RuntimeProcess) Log() string {
	b, err := os.ReadFile(p.log)
	if err != nil {
		return ""
	}
	return string(b)
}
