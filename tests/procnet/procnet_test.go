package procnet_test

import (
	"net"
	"os"
	"testing"

	"github.com/baton-run/baton/tests/procnet"
)

// TestListeningSeesLoopbackAndWildcardListeners proves the reader can tell a loopback listener from one on every
// interface, and finds this process as the owner.
func TestListeningSeesLoopbackAndWildcardListeners(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr     string
		loopback bool
	}{
		{"127.0.0.1:0", true},
		{"0.0.0.0:0", false},
		{"[::1]:0", true},
		{"[::]:0", false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			t.Parallel()
			l, err := net.Listen("tcp", tc.addr)
			if err != nil {
				t.Skipf("listen %s: %v", tc.addr, err) // no IPv6 on this host
			}
			defer l.Close()
			port := l.Addr().(*net.TCPAddr).Port
			socks, err := procnet.Listening(port)
			if err != nil {
				t.Fatal(err)
			}
			if len(socks) != 1 {
				t.Fatalf("listening sockets on %d: %v, want 1", port, socks)
			}
			if socks[0].Loopback() != tc.loopback {
				t.Errorf("%s read as %s, Loopback() = %v, want %v", tc.addr, socks[0].Addr, socks[0].Loopback(), tc.loopback)
			}
			if !procnet.OwnedBy(os.Getpid(), socks[0].Inode) {
				t.Errorf("socket %v not found among this process's descriptors", socks[0])
			}
		})
	}
}
