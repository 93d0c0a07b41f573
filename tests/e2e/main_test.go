package e2e_test

import (
	"testing"

	"github.com/baton-run/baton/tests/stack"
)

func TestMain(m *testing.M) { stack.Main(m) }
