// Package procnet reads Linux's listening TCP sockets from /proc/net/tcp and /proc/net/tcp6, for tests that
// prove a local component listens on loopback only (docs/operations.md §4). It owns no assertion.
package procnet
