package workspace

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// capture is an io.Writer that keeps the first max bytes written to it and counts (then discards) the rest, so a
// command printing 10 MB costs max bytes of memory.
type capture struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	if room := c.max - len(c.buf); room > 0 {
		if len(p) < room {
			room = len(p)
		}
		c.buf = append(c.buf, p[:room]...)
	}
	return len(p), nil
}

// stream returns what was kept and how many bytes were written in all.
func (c *capture) stream() Stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stream{Data: string(c.buf), Total: c.total}
}

// Stream is one output stream of a process: Data holds its first bytes (at most Limits.OutputBytes) and Total
// counts every byte it wrote, so Total > len(Data) means the rest was discarded.
type Stream struct {
	Data  string
	Total int64
}

// Fit returns the stream as text of at most limit bytes (valid UTF-8): its data, cut at a rune boundary when
// longer than limit or when bytes were discarded, followed by TruncationMarker for the bytes cut.
func (s Stream) Fit(limit int) string {
	data := s.Data
	if len(data) <= limit && int64(len(data)) == s.Total {
		return strings.ToValidUTF8(data, "\uFFFD")
	}
	keep := limit - markerRoom
	if keep < 0 {
		keep = 0
	}
	if keep > len(data) {
		keep = len(data)
	}
	for keep > 0 && keep < len(data) && !utf8.RuneStart(data[keep]) {
		keep--
	}
	return strings.ToValidUTF8(data[:keep], "\uFFFD") + TruncationMarker(s.Total-int64(keep))
}

// markerRoom is the room Fit leaves for the marker (TruncationMarker of any int64 fits).
const markerRoom = 64

// TruncationMarker is the text that replaces cut output: "\n[… N bytes truncated]\n", N the bytes cut.
func TruncationMarker(cut int64) string {
	return fmt.Sprintf("\n[… %d bytes truncated]\n", cut)
}

// FitTwo renders two streams within one budget of limit bytes: each gets half, and what one does not need goes
// to the other.
func FitTwo(a, b Stream, limit int) (string, string) {
	need := func(s Stream) int {
		if s.Total > int64(len(s.Data)) {
			return limit // more than any budget
		}
		return len(s.Data)
	}
	half := limit / 2
	la, lb := half, limit-half
	if na := need(a); na < la {
		la, lb = na, limit-na
	} else if nb := need(b); nb < lb {
		la, lb = limit-nb, nb
	}
	return a.Fit(la), b.Fit(lb)
}
