package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is returned (wrapped, with the address) for a dial to a guarded address.
var ErrForbiddenAddress = errors.New("address not allowed for caller-configured endpoints")

var ec2MetadataV6 = netip.MustParseAddr("fd00:ec2::254")

// Forbidden reports whether addr must not be dialled for a caller-configured endpoint: a link-local unicast or
// multicast address, the IPv6 EC2 metadata address, or an unspecified address.
func Forbidden(addr netip.Addr) bool {
	addr = addr.Unmap()
	return addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || addr.IsInterfaceLocalMulticast() ||
		addr.IsUnspecified() || addr == ec2MetadataV6
}

// control is a net.Dialer Control function that refuses guarded addresses.
func control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: %q: %w", address, err)
	}
	if Forbidden(ap.Addr()) {
		return fmt.Errorf("netguard: %s: %w", ap.Addr(), ErrForbiddenAddress)
	}
	return nil
}

// Transport returns an http.Transport like http.DefaultTransport whose dialer refuses guarded addresses. Use it
// for every client whose URL a caller chose. Proxies from the environment are not used: the check applies to the
// destination itself.
func Transport() *http.Transport {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: control}
	return &http.Transport{
		DialContext:           func(ctx context.Context, network, addr string) (net.Conn, error) { return d.DialContext(ctx, network, addr) },
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
