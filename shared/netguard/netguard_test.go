package netguard

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestForbidden(t *testing.T) {
	t.Parallel()
	cases := []struct {
		addr string
		want bool
	}{
		{"169.254.169.254", true}, // EC2 instance metadata
		{"169.254.170.2", true},   // ECS task credentials
		{"fd00:ec2::254", true},   // EC2 metadata over IPv6
		{"fe80::1", true},
		{"::ffff:169.254.169.254", true},
		{"0.0.0.0", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"10.0.0.5", false},
		{"192.168.1.10", false},
		{"203.0.113.7", false},
	}
	for _, c := range cases {
		t.Run(c.addr, func(t *testing.T) {
			t.Parallel()
			if got := Forbidden(netip.MustParseAddr(c.addr)); got != c.want {
				t.Errorf("Forbidden(%s) = %v, want %v", c.addr, got, c.want)
			}
		})
	}
}

func TestTransportReachesLoopbackAndRefusesLinkLocal(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	client := &http.Client{Transport: Transport()}
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatalf("loopback: %v", err)
	}
	resp.Body.Close()
	_, err = client.Get("http://169.254.170.2/v2/credentials")
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("link-local dial error = %v, want ErrForbiddenAddress", err)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Errorf("error %T is not a dial error", err)
	}
}
