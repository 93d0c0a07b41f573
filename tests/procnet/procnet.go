package procnet

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// Socket is one listening TCP socket: its local address and port and its inode (the number in a process's
// /proc/<pid>/fd link "socket:[inode]").
type Socket struct {
	Addr  netip.AddrPort
	Inode uint64
}

// Loopback reports whether the socket accepts connections from this host only: 127.0.0.0/8, ::1, or the
// IPv4-mapped form of 127.0.0.0/8.
func (s Socket) Loopback() bool { return s.Addr.Addr().Unmap().IsLoopback() }

// stateListen is the st column of a listening socket (TCP_LISTEN).
const stateListen = "0A"

// Listening returns every listening TCP socket (IPv4 and IPv6) on port.
func Listening(port int) ([]Socket, error) {
	var out []Socket
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		socks, err := read(f)
		if err != nil {
			return nil, err
		}
		for _, s := range socks {
			if int(s.Addr.Port()) == port {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// OwnedBy reports whether process pid has the socket with inode open.
func OwnedBy(pid int, inode uint64) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	want := "socket:[" + strconv.FormatUint(inode, 10) + "]"
	for _, e := range entries {
		if link, err := os.Readlink(dir + "/" + e.Name()); err == nil && link == want {
			return true
		}
	}
	return false
}

// read parses one /proc/net/tcp* table: the local address column is hex IP (in host byte order per 32-bit word)
// ":" hex port; st is the state; inode is the tenth column.
func read(path string) ([]Socket, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil // no IPv6 on this host
		}
		return nil, err
	}
	defer f.Close()
	var out []Socket
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != stateListen {
			continue
		}
		ap, err := parseAddr(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		inode, err := strconv.ParseUint(fields[9], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: inode %q: %w", path, fields[9], err)
		}
		out = append(out, Socket{Addr: ap, Inode: inode})
	}
	return out, sc.Err()
}

// parseAddr decodes "0100007F:1F90" (127.0.0.1:8080) or the 32-hex-digit IPv6 form.
func parseAddr(s string) (netip.AddrPort, error) {
	hexIP, hexPort, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("address %q", s)
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("port %q: %w", hexPort, err)
	}
	raw, err := hex.DecodeString(hexIP)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("address %q", hexIP)
	}
	// Each 32-bit word is in host byte order (little-endian on the machines Baton's tests run on).
	for i := 0; i < len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	addr, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(addr, uint16(port)), nil
}
