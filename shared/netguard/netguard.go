package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
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

// Transport returns the process's one guarded transport: http.DefaultTransport's settings with a dialer that
// refuses guarded addresses, and no proxy from the environment (the check applies to the destination itself). Use
// it for every client whose URL a caller chose; sharing it keeps connections pooled across turns.
func Transport() *http.Transport {
	transportOnce.Do(func() {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: control}
		guarded = http.DefaultTransport.(*http.Transport).Clone()
		guarded.DialContext = d.DialContext
		guarded.Proxy = nil
	})
	return guarded
}

var (
	transportOnce sync.Once
	guarded       *http.Transport
)
